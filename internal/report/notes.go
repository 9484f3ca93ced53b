package report

// A Note is what publishing a report could not do, for the job summary
// (and a warning annotation): a code and the error, if any (untrusted).
type Note struct {
	Code NoteCode
	Err  string
}

// NoteCode says what a Note is about.
type NoteCode string

// The notes of publishing the pull request comment.
const (
	// NoteFork: a pull_request run from a fork gets a read-only token;
	// the comment was skipped.
	NoteFork NoteCode = "fork"
	// NoteNoToken: no token input; the comment was skipped.
	NoteNoToken NoteCode = "no-token"
	// NoteNoRepository: GITHUB_REPOSITORY is not set.
	NoteNoRepository NoteCode = "no-repository"
	// NoteNotThisPR: the pr-number input is not this run's pull request
	// (Err says why); nothing was commented.
	NoteNotThisPR NoteCode = "not-this-pr"
	// NoteReadOnly: the token may not write the comment (403).
	NoteReadOnly NoteCode = "read-only"
	// NoteCommentFailed: the comment could not be written (Err).
	NoteCommentFailed NoteCode = "comment-failed"
)

// NoteText words a note.
func NoteText(n Note) string {
	switch n.Code {
	case NoteFork:
		return "the pull request comes from a fork, whose token is read-only: the comment was skipped; " +
			"the report is in this job summary. See the README for commenting on fork pull requests."
	case NoteNoToken:
		return "no token input: the pull request comment was skipped (the report is in this summary)"
	case NoteNoRepository:
		return "GITHUB_REPOSITORY is not set: the pull request comment was skipped"
	case NoteNotThisPR:
		return "no pull request comment: " + n.Err
	case NoteReadOnly:
		return "could not comment on the pull request: the token is read-only (a pull request from a fork gets a read-only token); the report is in this job summary. See the README for commenting on fork pull requests."
	case NoteCommentFailed:
		return "could not comment on the pull request: " + n.Err
	}
	return string(n.Code) + ": " + n.Err
}

func noteTexts(ns []Note) []string {
	var out []string
	for _, n := range ns {
		out = append(out, NoteText(n))
	}
	return out
}
