package event

import (
	"strings"
	"testing"
)

// fuzzEvents are the events Parse is fuzzed as, by the first argument.
var fuzzEvents = []string{"pull_request", "push", "merge_group", "workflow_run", "pull_request_target", "schedule", "workflow_dispatch", "issue_comment"}

// FuzzParse: any event payload parses, or is refused, without a panic; the
// commits a target names are full SHAs from the payload or GITHUB_SHA (a
// "^1" of one, for pull_request), never text a payload could make an
// option or a range of.
func FuzzParse(f *testing.F) {
	f.Add(uint8(0), []byte(`{"number":7,"action":"labeled","label":{"name":"x"},"sender":{"login":"m","type":"Bot"},"pull_request":{"number":7,"user":{"login":"a"},"head":{"sha":"a1b2c3d4e5f60718293a4b5c6d7e8f9012345678","repo":{"full_name":"o/r"}},"base":{"sha":"b1b2c3d4e5f60718293a4b5c6d7e8f9012345678","repo":{"full_name":"o/r"}}}}`))
	f.Fuzz(func(t *testing.T, which uint8, payload []byte) {
		name := fuzzEvents[int(which)%len(fuzzEvents)]
		tg, err := Parse(Input{EventName: name, Payload: payload, SHA: "3d1f4a0c9b2e8f7a6d5c4b3a29180716f5e4d3c2", AllowPrivileged: which >= 128, MergeOnly: which%2 == 1})
		if err != nil {
			return
		}
		for _, rev := range []string{tg.Base, tg.Head, tg.HeadSHA, tg.MergeCommit} {
			r := strings.TrimSuffix(rev, "^1")
			if r != "" && r != "HEAD" && !fullSHA.MatchString(r) {
				t.Fatalf("%s: a revision %q that is not a full SHA", name, rev)
			}
		}
	})
}
