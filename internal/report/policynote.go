package report

import "fmt"

// PolicyNote is a fact about the rules of a run that did not apply as
// written: a policy file missing at the commit it is read from,
// Benchgate-Accept trailers not read or not applied, an accept label that
// accepts nothing.
type PolicyNote struct {
	Code PolicyNoteCode
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

// PolicyNoteCode says what a PolicyNote is about.
type PolicyNoteCode string

// The policy notes.
const (
	// NoPolicyFile: the commit the policy is read from (a stacked pull
	// request's merge base) has no policy file.
	NoPolicyFile PolicyNoteCode = "no-policy-file"
	// TrailersUnread: head's commit message could not be read.
	TrailersUnread PolicyNoteCode = "trailers-unread"
	// TrailersNotApplied: the trailers are there but off (Off says why).
	TrailersNotApplied PolicyNoteCode = "trailers-not-applied"
	// LabelOlder: the accept label was on the pull request before head
	// was pushed.
	LabelOlder PolicyNoteCode = "label-older"
	// LabelUnknown: the run cannot tell whether the label was added for
	// head.
	LabelUnknown PolicyNoteCode = "label-unknown"
	// LabelByAuthor: the pull request's author added the label, which
	// accepts only a maintainer's word.
	LabelByAuthor PolicyNoteCode = "label-by-author"
	// LabelByBot: a bot added the label, and it is not one of the
	// trusted bots.
	LabelByBot PolicyNoteCode = "label-by-bot"
	// LabelNoWrite: whoever added the label has no write access to the
	// repository (Access says what they have).
	LabelNoWrite PolicyNoteCode = "label-no-write"
	// LabelUnverified: the sender's access could not be read (Err).
	LabelUnverified PolicyNoteCode = "label-unverified"
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

// PolicyNoteText words a policy note.
func PolicyNoteText(n PolicyNote) string {
	var s string
	switch n.Code {
	case NoPolicyFile:
		return fmt.Sprintf("no policy file: %s has no %s (%s)", n.Commit, n.File, n.Label)
	case TrailersUnread:
		return fmt.Sprintf("the message of commit %s could not be read, so its Benchgate-Accept trailers were not: %s", n.Commit, n.Err)
	case TrailersNotApplied:
		return fmt.Sprintf("the Benchgate-Accept trailers of commit %s were not applied: %s", n.Commit, offText(n.Off, n.Label))
	case LabelOlder:
		s = fmt.Sprintf("not accepted: the regressions were accepted by a label older than this commit (%s was on the pull request before %s was pushed); a maintainer accepts this commit's by adding the label again", n.Label, n.Commit)
	case LabelUnknown:
		action := n.Action
		if action == "" {
			action = "an unknown action"
		}
		s = fmt.Sprintf("not accepted: the label %s is on the pull request, but this run (%s) cannot tell whether it was added for commit %s; a maintainer accepts this commit's regressions by adding the label again", n.Label, action, n.Commit)
	case LabelByAuthor:
		return fmt.Sprintf("not accepted: the label %s was added by @%s, the pull request's author; it accepts a maintainer's word, not the author's", n.Label, n.Sender)
	case LabelByBot:
		return fmt.Sprintf("not accepted: the label %s was added by @%s, a bot the policy file does not trust (trusted-bots in .benchgate.yml); a maintainer accepts this commit's regressions by adding the label", n.Label, n.Sender)
	case LabelNoWrite:
		return fmt.Sprintf("not accepted: @%s, who added the label %s, has %s access to the repository, not write; a maintainer with write access accepts this commit's regressions by adding the label", n.Sender, n.Label, n.Access)
	case LabelUnverified:
		return fmt.Sprintf("not accepted: whether @%s, who added the label %s, has write access could not be read: %s", n.Sender, n.Label, n.Err)
	default:
		return string(n.Code)
	}
	if n.By != "" {
		s += fmt.Sprintf(" (the timeline: @%s added it at %s)", n.By, n.At)
	}
	return s
}

// offText says why trailers are off; label is the accept label, if any.
func offText(off TrailersOff, label string) string {
	switch off {
	case OffFlag:
		return "--accept-trailers is off (the commit's author writes them, and its author field is unverified); pass --accept-trailers to apply them"
	case OffInput:
		s := "input accept-trailers is false (the pull request's author writes them)"
		if label != "" {
			s += "; a maintainer accepts with the label " + label
		}
		return s
	case OffMergeQueue:
		return "trailers are never applied in a merge queue (the pull request's run decided; the queue's commit may hold a pull request's description, and the group holds other pull requests)"
	case OffEvent:
		return "trailers are applied only on pull_request events, from the pull request's head commit"
	case OffNoAuthor:
		return "the event names no pull request author to credit them to"
	}
	return string(off)
}

type jsonPolicyNote struct {
	Code   string `json:"code"`
	Commit string `json:"commit"`
	File   string `json:"file"`
	Label  string `json:"label"`
	Off    string `json:"off"`
	Action string `json:"action"`
	Error  string `json:"error"`
	By     string `json:"by"`
	At     string `json:"at"`
	Sender string `json:"sender"`
	Access string `json:"access"`
}
