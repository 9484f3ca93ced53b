package cli

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/shard"
)

// TestDeprecatedInputs: the old inputs still work for one release, and the
// log and the job summary each say, in one line, which ones the workflow
// sets and what replaces each; the same settings through args say nothing.
// (mode merge: nothing is measured.)
func TestDeprecatedInputs(t *testing.T) {
	ws := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	sdir := filepath.Join(ws, "s1")
	if err := os.MkdirAll(sdir, 0o755); err != nil {
		t.Fatal(err)
	}
	names := []string{"A", "B"}
	for side, f := range map[string]map[string]float64{"base.txt": nil, "head.txt": {"B": 1.5}} {
		if err := os.WriteFile(filepath.Join(sdir, side), []byte(writeRounds(names, 10, f, nil, rng)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := shard.Manifest{Shard: shard.Spec{Index: 1, Count: 1}, All: []string{"example.com/p.A-2", "example.com/p.B-2"},
		Assigned: []string{"example.com/p.A", "example.com/p.B"}, Complete: true, Rounds: 10, BaseSHA: "b", HeadSHA: "h"}
	if err := m.Write(sdir); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		inputs map[string]string
		want   string // the deprecation line; "" for none
	}{
		{"old inputs", map[string]string{"INPUT_ALPHA": "0.05", "INPUT_COMMENT-KEY": "linux", "INPUT_HISTORY": "false"},
			"the workflow sets old inputs that the next release will not read: comment-key → args: --comment-key linux; alpha → args: --alpha 0.05; history → no history input (no history is the default) (docs/action.md#inputs)"},
		{"args", map[string]string{"INPUT_ARGS": "--alpha 0.05 --comment-key linux"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			summary := filepath.Join(t.TempDir(), "summary.md")
			vars := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": ws, "GITHUB_EVENT_NAME": "push", "GITHUB_STEP_SUMMARY": summary,
				"INPUT_MODE": "merge", "INPUT_MERGE": "s1", "INPUT_COMMENT": "never"}
			for k, v := range tc.inputs {
				vars[k] = v
			}
			var o, e bytes.Buffer
			code := Run(context.Background(), []string{"action"}, Env{Getenv: func(k string) string { return vars[k] }, Stdout: &o, Stderr: &e, Dir: ws})
			if code != ExitFail {
				t.Fatalf("exit %d, want %d (B is 50%% slower)\n%s%s", code, ExitFail, o.String(), e.String())
			}
			sum, _ := os.ReadFile(summary)
			line := "benchgate: warning: " + tc.want
			switch {
			case tc.want == "" && (strings.Contains(o.String(), "old input") || strings.Contains(string(sum), "Deprecated")):
				t.Errorf("args said something about deprecated inputs:\n%s\n%s", o.String(), sum)
			case tc.want != "" && strings.Count(o.String(), line+"\n") != 1:
				t.Errorf("the log lacks one line %q:\n%s", line, o.String())
			case tc.want != "" && !strings.Contains(o.String(), "::warning title=benchgate::the workflow sets old inputs"):
				t.Errorf("no warning annotation:\n%s", o.String())
			case tc.want != "" && !strings.Contains(string(sum), "**Deprecated inputs**: the workflow sets old inputs that the next release will not read: `comment-key` → `args: --comment-key linux`; `alpha` → `args: --alpha 0.05`"):
				t.Errorf("the job summary lacks the deprecation line:\n%s", sum)
			}
			// alpha 0.05 was read either way: the report says so.
			if !strings.Contains(string(sum), "0.05") {
				t.Errorf("alpha 0.05 not applied:\n%s", sum)
			}
			if e.Len() > 0 { // the action logs on stdout
				t.Errorf("stderr: %q", e.String())
			}
		})
	}
}
