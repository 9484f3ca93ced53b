package report

import (
	"fmt"

	"github.com/benchgate/benchgate/internal/policy"
)

// PolicyNoteText words a policy note.
func PolicyNoteText(n policy.Note) string {
	var s string
	switch n.Code {
	case policy.NoPolicyFile:
		return fmt.Sprintf("no policy file: %s has no %s (%s)", n.Commit, n.File, n.Label)
	case policy.TrailersUnread:
		return fmt.Sprintf("the message of commit %s could not be read, so its Benchgate-Accept trailers were not: %s", n.Commit, n.Err)
	case policy.TrailersNotApplied:
		return fmt.Sprintf("the Benchgate-Accept trailers of commit %s were not applied: %s", n.Commit, offText(n.Off, n.Label))
	case policy.LabelOlder:
		s = fmt.Sprintf("not accepted: the regressions were accepted by a label older than this commit (%s was on the pull request before %s was pushed); a maintainer accepts this commit's by adding the label again", n.Label, n.Commit)
	case policy.LabelUnknown:
		action := n.Action
		if action == "" {
			action = "an unknown action"
		}
		s = fmt.Sprintf("not accepted: the label %s is on the pull request, but this run (%s) cannot tell whether it was added for commit %s; a maintainer accepts this commit's regressions by adding the label again", n.Label, action, n.Commit)
	case policy.LabelByAuthor:
		return fmt.Sprintf("not accepted: the label %s was added by @%s, the pull request's author; it accepts a maintainer's word, not the author's", n.Label, n.Sender)
	case policy.LabelByBot:
		return fmt.Sprintf("not accepted: the label %s was added by @%s, a bot the policy file does not trust (trusted-bots in .benchgate.yml); a maintainer accepts this commit's regressions by adding the label", n.Label, n.Sender)
	case policy.LabelNoWrite:
		return fmt.Sprintf("not accepted: @%s, who added the label %s, has %s access to the repository, not write; a maintainer with write access accepts this commit's regressions by adding the label", n.Sender, n.Label, n.Access)
	case policy.LabelUnverified:
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
func offText(off policy.TrailersOff, label string) string {
	switch off {
	case policy.OffFlag:
		return "--accept-trailers is off (the commit's author writes them, and its author field is unverified); pass --accept-trailers to apply them"
	case policy.OffInput:
		s := "input accept-trailers is false (the pull request's author writes them)"
		if label != "" {
			s += "; a maintainer accepts with the label " + label
		}
		return s
	case policy.OffMergeQueue:
		return "trailers are never applied in a merge queue (the pull request's run decided; the queue's commit may hold a pull request's description, and the group holds other pull requests)"
	case policy.OffEvent:
		return "trailers are applied only on pull_request events, from the pull request's head commit"
	case policy.OffNoAuthor:
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
