package policy

// Note is a fact about the rules of a run that did not apply as
// written: a policy file missing at the commit it is read from,
// Benchgate-Accept trailers not read or not applied, an accept label that
// accepts nothing.
type Note struct {
	Code NoteCode
	// Commit is the commit concerned (short); File is the policy file;
	// Label is the stacked commit's label (NoPolicyFile) or the accept
	// label (the others).
	Commit, File, Label string
	// Off says why the trailers were not applied (TrailersOff).
	Off TrailersOff
	// Action is the pull request event's action (LabelUnknown; "" if
	// unknown).
	Action string
	// Err is the error (TrailersUnread; untrusted).
	Err string
	// By and At say who added the label and when, from the pull
	// request's timeline; "" when unknown.
	By, At string
	// Sender is who added the label in the labeled event (the Label*
	// refusals), Access their access to the repository ("triage
	// (read)", LabelNoWrite).
	Sender, Access string
}

// NoteCode says what a Note is about.
type NoteCode string

// The policy notes.
const (
	// NoPolicyFile: the commit the policy is read from (a stacked pull
	// request's merge base) has no policy file.
	NoPolicyFile NoteCode = "no-policy-file"
	// TrailersUnread: head's commit message could not be read.
	TrailersUnread NoteCode = "trailers-unread"
	// TrailersNotApplied: the trailers are there but off (Off says why).
	TrailersNotApplied NoteCode = "trailers-not-applied"
	// LabelOlder: the accept label was on the pull request before head
	// was pushed.
	LabelOlder NoteCode = "label-older"
	// LabelUnknown: the run cannot tell whether the label was added for
	// head.
	LabelUnknown NoteCode = "label-unknown"
	// LabelByAuthor: the pull request's author added the label, which
	// accepts only a maintainer's word.
	LabelByAuthor NoteCode = "label-by-author"
	// LabelByBot: a bot added the label, and it is not one of the
	// trusted bots.
	LabelByBot NoteCode = "label-by-bot"
	// LabelNoWrite: whoever added the label has no write access to the
	// repository (Access says what they have).
	LabelNoWrite NoteCode = "label-no-write"
	// LabelUnverified: the sender's access could not be read (Err).
	LabelUnverified NoteCode = "label-unverified"
)

// TrailersOff says why Benchgate-Accept trailers are not applied; "" is
// applied.
type TrailersOff string

// Why trailers are off.
const (
	OffFlag       TrailersOff = "flag"        // run without --accept-trailers
	OffInput      TrailersOff = "input"       // the action's accept-trailers input is false
	OffMergeQueue TrailersOff = "merge-queue" // never in a merge queue
	OffEvent      TrailersOff = "event"       // not a pull_request event
	OffNoAuthor   TrailersOff = "no-author"   // no pull request author to credit
)
