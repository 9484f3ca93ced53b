// Package github publishes benchgate's results to GitHub: the sticky pull
// request comment through the REST API, and the job summary, step outputs,
// annotations and secret masks through the runner's workflow commands. It moves
// bytes; what they say is decided upstream.
//
// # The sticky comment
//
// A [Commenter] keeps one comment per pull request and key. [Commenter.Upsert]
// puts the hidden marker <!-- benchgate:KEY --> on the body's first line,
// lists every comment of the pull request (100 per page, following the Link
// header), and takes the newest one that starts with the marker and was written
// by the expected author: Options.Author if set (the login of a personal access
// token's user or an app's "NAME[bot]"), else github-actions[bot] with its
// account id [ActionsBotID]. A marker elsewhere in a comment (a quote) or in
// another account's comment (a bot echoing the pull request's text) is
// ignored. That
// comment is edited in place if its body differs and left alone if not; a
// comment is created only when there is none, or when the one found was deleted
// before it could be edited (404).
//
// Bodies are at most [MaxCommentLength] long. Longer ones are replaced, before
// sending, by the caller's shorter version (the shorten function passed to
// Upsert) or else cut by [Truncate]. If GitHub still answers 422 "body is too
// long" (GitHub Enterprise may have another limit), a body half as long is
// asked for and sent once more.
//
// Answers that may go away are retried up to Options.Attempts times in all:
// 5xx, 429, and 403 rate-limit answers (primary: X-RateLimit-Remaining: 0,
// waiting until X-RateLimit-Reset; secondary: waiting Retry-After, or a minute).
// Without a Retry-After the waits grow 1s, 2s, 4s. A request gives up at once
// when the total wait would pass Options.MaxWait. A create that failed without
// a clear answer (5xx, broken connection) may have been stored anyway, so the
// comments are listed again before creating a second time.
//
// [Commenter.PullRequest] reads a pull request's head and base (GET
// /repos/{owner}/{repo}/pulls/{number}) with the same retries, for a caller
// that must check a pull request number it was given before commenting.
//
// Errors are *[APIError] values. A 403 that is not a rate limit, as a pull
// request from a fork gets with its read-only token, matches [ErrForbidden]
// with errors.Is: a reason to warn, not to fail.
//
// The token is sent, as "Authorization: Bearer TOKEN", only to the scheme and
// host of the API URL (not to hosts a redirect leads to), and it is replaced by
// "***" in every error message, even if a server echoes it back.
//
// # Workflow commands
//
// [Actions] writes to the step's files and standard output: [Actions.StepSummary]
// appends Markdown to GITHUB_STEP_SUMMARY, cut at a line to stay under
// GitHub's 1 MiB per step; [Actions.SetOutputs] writes GITHUB_OUTPUT;
// [Actions.Annotate] and [Actions.AnnotateWorst] emit ::error::,
// ::warning:: and ::notice:: annotations, of which the runner shows only 10
// of each level per step, so [Worst] keeps the most severe; [Actions.Mask]
// hides a secret from the log. They return an error matching
// [ErrNotInActions] when the file a command needs is not configured, and never
// panic.
package github
