package report

import (
	"html"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Encode/format=json-8", "Encode/format=json-8"},
		{"<img src=x onerror=alert(1)>|@octocat", "&#60;img src=x onerror=alert(1)&#62;&#124;&#64;&#8203;octocat"},
		{"a|b", "a&#124;b"},
		{"[link](x)", "&#91;link&#93;(x)"},
		{"![img](x)", "!&#91;img&#93;(x)"},
		{"`code`", "&#96;code&#96;"},
		{"*b* _i_ ~s~", "&#42;b&#42; &#95;i&#95; &#126;s&#126;"},
		{"line1\nline2\r\n\tx", "line1 line2   x"},
		{"@org/team", "&#64;&#8203;org/team"},
		{"fixes #123 and o/r#4", "fixes &#35;&#8203;123 and o/r&#35;&#8203;4"},
		{"see GH-12 gh-3", "see GH&#45;&#8203;12 gh&#45;&#8203;3"},
		{"&amp; &#60;", "&#38;amp; &#38;&#35;&#8203;60;"},
		{`a\|b`, "a&#92;&#124;b"},
		{"$x$", "&#36;x&#36;"},
		{"<!-- x -->", "&#60;!-- x --&#62;"},
		{"</details>", "&#60;/details&#62;"},
		{"bidi\u202eevil\u2066", "bidi\ufffdevil\ufffd"},
		{"nul\x00esc\x1b", "nul\ufffdesc\ufffd"},
		{"bad\xffutf8", "bad\ufffdutf8"},
		{"µs ± 2% → α", "µs ± 2% → α"},
	}
	for _, tt := range tests {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q)\n got  %q\n want %q", tt.in, got, tt.want)
		}
	}
}

// TestEscapeBreaksGHReference checks the decoded text, as GitHub's
// reference filter sees it.
func TestEscapeBreaksGHReference(t *testing.T) {
	got := html.UnescapeString(Escape("GH-12"))
	if strings.Contains(got, "GH-1") {
		t.Errorf("unescaped %q still contains a GH- reference", got)
	}
}

var entity = regexp.MustCompile(`&#[0-9]+;`)

// FuzzEscape checks, for any input, that the escaped text contains no raw
// Markdown or HTML syntax character and no line break outside numeric
// character references, that it is valid UTF-8, and that decoding the
// references gives back the input (without control characters) with
// mentions and references broken by zero-width spaces.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{
		"<img src=x onerror=alert(1)>|@octocat",
		"[link](x) `code` *b* _i_",
		"a\nb\r\n| c |",
		"#1 GH-2 @a/b",
		"&lt;&#64;",
		"\u202e\x00\xff",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := Escape(in)
		if !utf8.ValidString(out) {
			t.Fatalf("Escape(%q) = %q: invalid UTF-8", in, out)
		}
		residue := entity.ReplaceAllString(out, "")
		if i := strings.IndexAny(residue, escapedASCII+"\n\r\x00"); i >= 0 {
			t.Fatalf("Escape(%q) = %q: raw %q", in, out, residue[i])
		}
		dec := html.UnescapeString(out)
		for _, bad := range []string{"@", "#", "GH-", "gh-"} {
			for i := 0; ; {
				j := strings.Index(dec[i:], bad)
				if j < 0 {
					break
				}
				i += j + len(bad)
				if i < len(dec) && !strings.HasPrefix(dec[i:], "\u200b") {
					t.Fatalf("Escape(%q) decodes to %q: %q not followed by a zero-width space", in, dec, bad)
				}
			}
		}
		clean := true
		for _, r := range in {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == utf8.RuneError || r == '\u2028' || r == '\u2029' || isBidi(r) {
				clean = false
			}
		}
		if clean && utf8.ValidString(in) {
			if got, want := strings.ReplaceAll(dec, "\u200b", ""), strings.ReplaceAll(in, "\u200b", ""); got != want {
				t.Fatalf("Escape(%q) decodes to %q, want the input back", in, got)
			}
		}
	})
}

func TestCodeBlock(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "panic: boom\n", "```text\npanic: boom\n```\n"},
		{"backticks cannot close the fence", "a\n```\n</details>\n`````x", "``````text\na\n```\n</details>\n`````x\n``````\n"},
		{"control characters", "a\x1b[31mred\x00\tz", "```text\na\ufffd[31mred\ufffd\tz\n```\n"},
		{"CRLF", "a\r\nb\r\n", "```text\na\nb\n```\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := codeBlock(tt.in); got != tt.want {
				t.Errorf("codeBlock(%q)\n got  %q\n want %q", tt.in, got, tt.want)
			}
		})
	}
	long := strings.Repeat("line\n", 50)
	got := codeBlock(long)
	if n := strings.Count(got, "line\n"); n != maxOutputLines {
		t.Errorf("%d lines kept, want %d", n, maxOutputLines)
	}
	if !strings.Contains(got, "… 30 more lines\n") {
		t.Errorf("no note of the cut lines:\n%s", got)
	}
	wide := codeBlock(strings.Repeat("x", 1000))
	if n := utf8.RuneCountInString(strings.Split(wide, "\n")[1]); n != maxOutputLine {
		t.Errorf("long line kept %d runes, want %d", n, maxOutputLine)
	}
}

func TestTruncate(t *testing.T) {
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "ab…"},
		{"µµµµ", 2, "µ…"},
	} {
		if got := truncate(tt.in, tt.n); got != tt.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestCodeSpan(t *testing.T) {
	for in, want := range map[string]string{
		"benchstat a b": "`benchstat a b`",
		"a`b":           "``a`b``",
		"`x":            "`` `x ``",
		"a\nb":          "`a b`",
	} {
		if got := codeSpan(in); got != want {
			t.Errorf("codeSpan(%q) = %q, want %q", in, got, want)
		}
	}
}
