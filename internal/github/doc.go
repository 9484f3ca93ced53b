// Package github publishes benchgate's results to GitHub: the sticky pull
// request comment through the REST API ([Commenter]: one comment per pull
// request and key, found by its leading marker and its author, edited in
// place, retried on rate limits; who last added a label, from the issue's
// timeline), and the job summary, step outputs,
// annotations and masks through the runner's workflow commands ([Actions]),
// with text benchgate does not control printed where the runner runs no
// command ([Log]). It moves bytes; what they say is decided upstream. The
// API behaviour is described in docs/github.md.
package github
