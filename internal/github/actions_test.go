package github

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// files returns a getenv for GITHUB_STEP_SUMMARY and GITHUB_OUTPUT files in a
// fresh directory, and the paths.
func files(t *testing.T) (getenv func(string) string, summary, output string) {
	t.Helper()
	dir := t.TempDir()
	summary, output = filepath.Join(dir, "step_summary_1"), filepath.Join(dir, "set_output_1")
	env := map[string]string{"GITHUB_STEP_SUMMARY": summary, "GITHUB_OUTPUT": output}
	return func(k string) string { return env[k] }, summary, output
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func unset(string) string { return "" }

func TestStepSummary(t *testing.T) {
	getenv, summary, _ := files(t)
	a := NewActions(new(bytes.Buffer), getenv)
	if err := a.StepSummary("## Benchmarks\n\n| a | b |\n"); err != nil {
		t.Fatal(err)
	}
	if err := a.StepSummary("second part"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("## Benchmarks\n\n| a | b |\n\nsecond part\n", read(t, summary)); diff != "" {
		t.Errorf("summary mismatch (-want +got):\n%s", diff)
	}
}

// The job summary's room counts what earlier steps wrote; markdown over
// it is refused, not cut, and what was there stays (the caller fits its
// report in the room: report's MaxChars).
func TestStepSummaryRoom(t *testing.T) {
	getenv, summary, _ := files(t)
	existing := strings.Repeat("x", MaxStepSummary/2) + "\n"
	if err := os.WriteFile(summary, []byte(existing), 0o644); err != nil {
		t.Fatal(err)
	}
	a := NewActions(new(bytes.Buffer), getenv)
	room, err := a.SummaryRoom()
	if err != nil || room != MaxStepSummary-len(existing)-1 {
		t.Fatalf("SummaryRoom = %d, %v; want %d", room, err, MaxStepSummary-len(existing)-1)
	}
	if err := a.StepSummary(strings.Repeat("y", room+1)); err == nil || !strings.Contains(err.Error(), "room for") {
		t.Errorf("markdown over the room: %v", err)
	}
	if got := read(t, summary); got != existing {
		t.Errorf("the refused markdown changed the summary (%d bytes)", len(got))
	}
	if err := a.StepSummary(strings.Repeat("y", room)); err != nil {
		t.Fatal(err)
	}
	if got := read(t, summary); len(got) != MaxStepSummary || !strings.HasPrefix(got, existing) {
		t.Errorf("summary of %d bytes, want %d starting with what was there", len(got), MaxStepSummary)
	}
}

func TestStepSummaryFull(t *testing.T) {
	getenv, summary, _ := files(t)
	if err := os.WriteFile(summary, bytes.Repeat([]byte("x"), MaxStepSummary), 0o644); err != nil {
		t.Fatal(err)
	}
	err := NewActions(new(bytes.Buffer), getenv).StepSummary("more")
	if err == nil || !strings.Contains(err.Error(), "room for 0") {
		t.Errorf("StepSummary on a full summary: error = %v, want room for 0", err)
	}
}

func TestFileCommandsOutsideActions(t *testing.T) {
	a := NewActions(new(bytes.Buffer), unset)
	for name, err := range map[string]error{
		"StepSummary": a.StepSummary("x"),
		"SetOutputs":  a.SetOutputs(map[string]string{"verdict": "pass"}),
	} {
		if !errors.Is(err, ErrNotInActions) {
			t.Errorf("%s without its variable: error = %v, want ErrNotInActions", name, err)
		}
	}
	want := "job summary: GITHUB_STEP_SUMMARY is not set: not running in GitHub Actions"
	if err := a.StepSummary("x"); err.Error() != want {
		t.Errorf("StepSummary error = %q, want %q", err, want)
	}
}

func TestFileCommandsUnwritable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing", "dir")
	getenv := func(k string) string { return filepath.Join(dir, k) }
	a := NewActions(new(bytes.Buffer), getenv)
	if err := a.StepSummary("x"); err == nil || !strings.Contains(err.Error(), "job summary") {
		t.Errorf("StepSummary to a missing directory: error = %v", err)
	}
	if err := a.SetOutputs(map[string]string{"verdict": "pass"}); err == nil || !strings.Contains(err.Error(), "step output verdict") {
		t.Errorf("SetOutputs to a missing directory: error = %v", err)
	}
}

func TestSetOutputs(t *testing.T) {
	getenv, _, output := files(t)
	a := NewActions(new(bytes.Buffer), getenv)
	err := a.SetOutputs(map[string]string{
		"verdict":     "fail",
		"regressions": "3",
		"report-json": "/github/workspace/benchgate/report.json",
	})
	if err != nil {
		t.Fatal(err)
	}
	const d = "_GitHubActionsFileCommandDelimeter_"
	want := "regressions<<" + d + "\n3\n" + d + "\n" +
		"report-json<<" + d + "\n/github/workspace/benchgate/report.json\n" + d + "\n" +
		"verdict<<" + d + "\nfail\n" + d + "\n"
	if diff := cmp.Diff(want, read(t, output)); diff != "" {
		t.Errorf("GITHUB_OUTPUT mismatch (-want +got):\n%s", diff)
	}
}

func TestSetOutputsInvalid(t *testing.T) {
	tests := []struct {
		outputs map[string]string
		want    string
	}{
		{map[string]string{"ok": "1", "bad name": "x"}, `step output "bad name"`},
		{map[string]string{"ok": "1", "x<<EOF": "x"}, `step output "x<<EOF"`},
		{map[string]string{"ok": "1", "-x": "x"}, `step output "-x"`},
		{map[string]string{"ok": "1", "injected": "a\n_GitHubActionsFileCommandDelimeter_\nverdict<<X\npass"}, "step output injected: the value contains"},
	}
	for _, tt := range tests {
		getenv, _, output := files(t)
		err := NewActions(new(bytes.Buffer), getenv).SetOutputs(tt.outputs)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("SetOutputs(%q) error = %v, want %q", tt.outputs, err, tt.want)
		}
		if _, err := os.Stat(output); err == nil {
			t.Errorf("SetOutputs(%q) wrote %q, want nothing", tt.outputs, read(t, output))
		}
	}
}

func TestAnnotate(t *testing.T) {
	tests := []struct {
		name        string
		level       Level
		file        string
		line        int
		title, msg  string
		want        string
		wantErrText string
	}{
		{
			name: "error on a benchmark", level: Error, file: "parser/parse_test.go", line: 42,
			title: "BenchmarkParse: +18.0% time/op", msg: "1.23µs → 1.45µs (p=0.000 n=10)",
			want: "::error file=parser/parse_test.go,line=42,title=BenchmarkParse%3A +18.0%25 time/op::1.23µs → 1.45µs (p=0.000 n=10)\n",
		},
		{
			name: "warning without a file", level: Warning, title: "comment", msg: "could not comment: read-only token",
			want: "::warning title=comment::could not comment: read-only token\n",
		},
		{
			name: "notice without properties", level: Notice, msg: "no change",
			want: "::notice::no change\n",
		},
		{
			name: "line without file is dropped", level: Notice, line: 3, msg: "x",
			want: "::notice::x\n",
		},
		{
			name: "hostile benchmark name", level: Error, file: "a_test.go", line: 1,
			title: "Benchmark/x,line=1::\n::add-mask::", msg: "50%\n::error::injected\r\n",
			want: "::error file=a_test.go,line=1,title=Benchmark/x%2Cline=1%3A%3A%0A%3A%3Aadd-mask%3A%3A::50%25%0A::error::injected%0D%0A\n",
		},
		{name: "unknown level", level: "fatal", msg: "x", wantErrText: `annotation level "fatal": want error, warning or notice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := NewActions(&buf, unset).Annotate(tt.level, tt.file, tt.line, tt.title, tt.msg)
			if tt.wantErrText != "" {
				if err == nil || err.Error() != tt.wantErrText {
					t.Errorf("Annotate error = %v, want %q", err, tt.wantErrText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, buf.String()); diff != "" {
				t.Errorf("Annotate mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestCommandsOnBrokenWriter(t *testing.T) {
	a := NewActions(failingWriter{}, unset)
	if err := a.Annotate(Error, "", 0, "", "x"); err == nil || !strings.Contains(err.Error(), "broken pipe") {
		t.Errorf("Annotate on a broken writer: error = %v", err)
	}
	if err := a.Mask("secret"); err == nil || !strings.Contains(err.Error(), "broken pipe") {
		t.Errorf("Mask on a broken writer: error = %v", err)
	}
	if _, err := a.AnnotateWorst([]Annotation{{Level: Error, Message: "x"}}); err == nil {
		t.Errorf("AnnotateWorst on a broken writer: no error")
	}
}

func TestMask(t *testing.T) {
	tests := []struct {
		secret, want string
	}{
		{"ghs_abc123", "::add-mask::ghs_abc123\n"},
		{"", ""},
		{"line1\nline2\r\n\n", "::add-mask::line1\n::add-mask::line2\n"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		if err := NewActions(&buf, unset).Mask(tt.secret); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, buf.String()); diff != "" {
			t.Errorf("Mask(%q) mismatch (-want +got):\n%s", tt.secret, diff)
		}
	}
}

func TestWorst(t *testing.T) {
	var list []Annotation
	for i := range 12 {
		list = append(list, Annotation{Level: Error, Title: fmt.Sprintf("e%d", i), Severity: float64(i % 6)})
	}
	list = append(list,
		Annotation{Level: Warning, Title: "w-low", Severity: 1},
		Annotation{Level: Notice, Title: "n", Severity: 0},
		Annotation{Level: Warning, Title: "w-high", Severity: 9},
	)
	titles := func(as []Annotation) []string {
		var out []string
		for _, a := range as {
			out = append(out, a.Title)
		}
		return out
	}
	tests := []struct {
		n           int
		want        []string
		wantDropped int
	}{
		{n: 10, want: []string{"e5", "e11", "e4", "e10", "e3", "e9", "e2", "e8", "e1", "e7", "w-high", "w-low", "n"}, wantDropped: 2},
		{n: 50, want: []string{"e5", "e11", "e4", "e10", "e3", "e9", "e2", "e8", "e1", "e7", "w-high", "w-low", "n"}, wantDropped: 2},
		{n: 1, want: []string{"e5", "w-high", "n"}, wantDropped: 12},
		{n: 0, want: nil, wantDropped: 15},
	}
	for _, tt := range tests {
		kept, dropped := worst(list, tt.n)
		if diff := cmp.Diff(tt.want, titles(kept)); diff != "" {
			t.Errorf("worst(n=%d) mismatch (-want +got):\n%s", tt.n, diff)
		}
		if dropped != tt.wantDropped {
			t.Errorf("worst(n=%d) dropped %d, want %d", tt.n, dropped, tt.wantDropped)
		}
	}

	var buf bytes.Buffer
	dropped, err := NewActions(&buf, unset).AnnotateWorst(list)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(buf.String(), "::error "); got != 10 || dropped != 2 {
		t.Errorf("AnnotateWorst wrote %d errors and dropped %d, want 10 and 2:\n%s", got, dropped, buf.String())
	}
}
