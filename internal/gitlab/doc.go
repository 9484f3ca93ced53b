// Package gitlab is benchgate's side of a GitLab CI job: which two commits
// a pipeline compares ([Pipeline.Target], from the predefined variables
// the caller read: merged results, merge trains, detached merge request
// pipelines, pushes), and the sticky merge request note through GitLab's
// REST API ([Client.Upsert]: one note per merge request and key, found by
// its leading marker and its author, edited in place, retried on rate
// limits, made inert against quick actions). It uses plain net/http and
// knows no verdicts: what the note says is decided upstream. The rules are
// in docs/gitlab.md.
package gitlab
