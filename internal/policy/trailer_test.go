package policy

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

type acceptWant struct {
	pattern string
	line    int
	trailer string
}

func TestParseAcceptTrailers(t *testing.T) {
	cases := []struct {
		name, msg string
		want      []acceptWant
	}{
		{"one", "codec: grow the buffer\n\nCorrectness first.\n\nBenchgate-Accept: codec\\.Encode\n",
			[]acceptWant{{`codec\.Encode`, 5, `Benchgate-Accept: codec\.Encode`}}},
		{"several, any case, among others", "subject\n\nbody\n\nbenchgate-accept: A$\nReviewed-by: Someone <s@example.com>\nBENCHGATE-ACCEPT : B\n",
			[]acceptWant{{"A$", 5, "benchgate-accept: A$"}, {"B", 7, "BENCHGATE-ACCEPT : B"}}},
		{"continuation", "subject\n\nBenchgate-Accept: codec\\.(Encode|\n  Decode)\n",
			[]acceptWant{{`codec\.(Encode| Decode)`, 3, `Benchgate-Accept: codec\.(Encode| Decode)`}}},
		{"subject only", "Benchgate-Accept: X\n", nil},
		{"not in the last paragraph", "subject\n\nBenchgate-Accept: X\n\nMore text after it.\n", nil},
		{"paragraph with prose", "subject\n\nThis explains.\nBenchgate-Accept: X\n", nil},
		{"signed-off-by lets prose in (25% rule)", "subject\n\nprose one\nprose two\nBenchgate-Accept: X\nSigned-off-by: A <a@example.com>\n",
			[]acceptWant{{"X", 5, "Benchgate-Accept: X"}}},
		{"too much prose even with signed-off-by", "subject\n\np1\np2\np3\np4\np5\np6\np7\nSigned-off-by: A <a@example.com>\nBenchgate-Accept: X\n", nil},
		{"comments and trailing blank lines", "subject\n\nBenchgate-Accept: X\n# a comment\n\n\n",
			[]acceptWant{{"X", 3, "Benchgate-Accept: X"}}},
		{"patch divider", "subject\n\nBenchgate-Accept: X\n---\nBenchgate-Accept: Y\n",
			[]acceptWant{{"X", 3, "Benchgate-Accept: X"}}},
		{"CRLF", "subject\r\n\r\nBenchgate-Accept: X\r\n",
			[]acceptWant{{"X", 3, "Benchgate-Accept: X"}}},
		{"other key only", "subject\n\nBenchgate-Accepted: X\n", nil},
		{"empty message", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseAcceptTrailers(c.msg)
			if err != nil {
				t.Fatal(err)
			}
			var g []acceptWant
			for _, a := range got {
				g = append(g, acceptWant{a.Pattern, a.Line, a.Trailer})
				if a.re == nil || a.By != "" {
					t.Errorf("%+v: no regexp, or By set", a)
				}
			}
			if !slices.Equal(g, c.want) {
				t.Errorf("got %+v, want %+v", g, c.want)
			}
		})
	}
}

func TestParseAcceptTrailersErrors(t *testing.T) {
	msg := "subject\n\nbody\n\nBenchgate-Accept: codec\\.(Encode\nSigned-off-by: A <a@example.com>\nbenchgate-accept:\nBenchgate-Accept: fine\n"
	got, err := ParseAcceptTrailers(msg)
	if got != nil {
		t.Errorf("accepts beside an error: %+v", got)
	}
	want := []string{
		"commit message:5: Benchgate-Accept: invalid regular expression \"codec\\\\.(Encode\": missing closing ): `codec\\.(Encode`",
		"commit message:7: benchgate-accept: empty regexp: write '.' to accept every regression",
	}
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("err = %v (%T)", err, err)
	}
	var s []string
	for _, e := range list {
		s = append(s, e.Error())
	}
	if !slices.Equal(s, want) {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(s, "\n"), strings.Join(want, "\n"))
	}
}

func TestAcceptMatches(t *testing.T) {
	acc, err := ParseAcceptTrailers("s\n\nBenchgate-Accept: codec\\.Encode$\nBenchgate-Accept: Parse-4$\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		pkg, name string
		line      int // 0: not accepted
	}{
		{"ex.com/codec", "Encode-8", 3},
		{"ex.com/codec", "Encode", 3},
		{"ex.com/codec", "Encode/json-8", 0},
		{"ex.com/parse", "Parse-4", 4},
		{"ex.com/parse", "Parse-8", 0},
	} {
		a, ok := Accepted(acc, c.pkg, c.name)
		if ok != (c.line > 0) || a.Line != c.line {
			t.Errorf("Accepted(%s, %s) = line %d, %v; want line %d", c.pkg, c.name, a.Line, ok, c.line)
		}
	}
}

// The trailer block is found as git finds it: git interpret-trailers
// --parse lists the same trailers for each message.
func TestTrailersAgreeWithGit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not found")
	}
	msgs := []string{
		"subject\n\nbody\n\nBenchgate-Accept: a\\.b\nbenchgate-accept : c\n  d\nSigned-off-by: X <x@example.com>\n",
		"Benchgate-Accept: X\n",
		"subject\n\nfoo\nbar\nbaz\nSigned-off-by: X <x@example.com>\nKey: v\n",
		"subject\n\nfoo\nbar\nbaz\nzz\nSigned-off-by: X <x@example.com>\n",
		"subject\n\np1\np2\np3\np4\nSigned-off-by: A <a@example.com>\nBenchgate-Accept: X\n",
		"subject\n\np1\np2\np3\np4\np5\np6\np7\nSigned-off-by: A <a@example.com>\nBenchgate-Accept: X\n",
		"subject\n\nKey: v\n\n# comment\n",
		"subject\n\nKey: v\n---\nfoo: bar\n",
		"subject\n\nKey: v\n\nprose\n",
		"subject\n\nKey: v\n\n\n\n",
		"subject\nstill subject\n\nKey: v\nOther-Key: w\n",
		"subject\n\n(cherry picked from commit 0123456789abcdef)\nprose\nKey: v\n",
		"subject\n\nprose: with a colon, key-like\n",
		"subject\n\nNot a trailer line here: x\nAnother line without colon\n",
		"subject\n\n  indented: first\nKey: v\n",
		"",
	}
	for _, m := range msgs {
		cmd := exec.Command(git, "interpret-trailers", "--parse")
		cmd.Stdin = strings.NewReader(m)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git interpret-trailers: %v", err)
		}
		var want []string
		for l := range strings.Lines(string(out)) {
			want = append(want, strings.TrimSuffix(l, "\n"))
		}
		var got []string
		for _, tr := range trailers(m) {
			got = append(got, tr.key+": "+tr.value)
		}
		if !slices.Equal(got, want) {
			t.Errorf("message %q:\nours %q\ngit  %q", m, got, want)
		}
	}
}
