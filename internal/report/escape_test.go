package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/github/githubtest"
	"github.com/benchgate/benchgate/internal/stats"
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
		{"bidi\u202eevil\u2066", "bidi&#60;U+202E&#62;evil&#60;U+2066&#62;"},
		{"a\u200bb\u2060c\ufeffd\u00ade\u200df", "a&#60;U+200B&#62;b&#60;U+2060&#62;c&#60;U+FEFF&#62;d&#60;U+00AD&#62;e&#60;U+200D&#62;f"},
		{"\u200e\u200f\u061c\u2069", "&#60;U+200E&#62;&#60;U+200F&#62;&#60;U+061C&#62;&#60;U+2069&#62;"},
		{"https://github.com/x/y/issues/1", "https:&#8203;//github.com/x/y/issues/1"},
		{"Get/www.example.com", "Get/www&#8203;.example.com"},
		{"WWW.EXAMPLE.COM", "WWW&#8203;.EXAMPLE.COM"},
		{"ratio:3/4 a:b", "ratio:3/4 a:b"},
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
		"a\u200bb\u00ad",
		"see https://github.com/x/y/issues/1 or www.example.com, mail a@b.co",
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
		// Every zero-width space in the decoded text is one Escape
		// inserted: those of the input are shown as "<U+200B>".
		for _, r := range strings.ReplaceAll(dec, "\u200b", "") {
			if Invisible(r) {
				t.Fatalf("Escape(%q) decodes to %q: invisible %U", in, dec, r)
			}
		}
		if links := gfmAutolinks(out); len(links) > 0 {
			t.Fatalf("Escape(%q) = %q autolinks %q", in, out, links)
		}
		if links := gfmAutolinks(dec); len(links) > 0 {
			t.Fatalf("Escape(%q) decodes to %q, which autolinks %q", in, dec, links)
		}
		clean := true
		for _, r := range in {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == utf8.RuneError || r == '\u2028' || r == '\u2029' {
				clean = false
			}
		}
		if clean && utf8.ValidString(in) {
			if got, want := strings.ReplaceAll(dec, "\u200b", ""), Visible(in); got != want {
				t.Fatalf("Escape(%q) decodes to %q, want the input back (invisible characters shown: %q)", in, got, want)
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
		{"invisible characters shown", "Bench\u200bA \u202egnp.exe", "```text\nBench<U+200B>A <U+202E>gnp.exe\n```\n"},
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

// gfmAutolinks returns what GitHub's autolink extension would link in the
// text of a paragraph, following the GFM specification (section 6.9,
// "Autolinks (extension)") and cmark-gfm, and erring towards finding a
// link:
//
//   - extended www autolink: "www." (in any case) at the start, after
//     white space or after one of * _ ~ (, then a domain character;
//   - extended url autolink: "http://" or "https://" (cmark-gfm also
//     "ftp://"; in any case) not preceded by a letter, then a domain
//     character;
//   - extended email autolink: one or more of [A-Za-z0-9.+_-], "@", then
//     a domain of [A-Za-z0-9_-] segments with at least one ".".
//
// A domain character is a letter, digit, "_" or "-".
func gfmAutolinks(text string) []string {
	var links []string
	domainChar := func(i int) bool {
		if i >= len(text) {
			return false
		}
		c := text[i]
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
	}
	letter := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	lower := []byte(text) // ASCII case folding keeps the byte offsets
	for i, c := range lower {
		if c >= 'A' && c <= 'Z' {
			lower[i] = c + 'a' - 'A'
		}
	}
	for i := range len(text) {
		if bytes.HasPrefix(lower[i:], []byte("www.")) && domainChar(i+4) &&
			(i == 0 || strings.IndexByte(" \t\n*_~(", text[i-1]) >= 0) {
			links = append(links, text[i:])
		}
		for _, scheme := range []string{"http://", "https://", "ftp://"} {
			if bytes.HasPrefix(lower[i:], []byte(scheme)) && domainChar(i+len(scheme)) && (i == 0 || !letter(text[i-1])) {
				links = append(links, text[i:])
			}
		}
	}
	if m := gfmEmail.FindAllString(text, -1); m != nil {
		links = append(links, m...)
	}
	return links
}

var gfmEmail = regexp.MustCompile(`[A-Za-z0-9.+_-]+@[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)+`)

// TestEscapeNoAutolink checks names with bare URLs and addresses against
// the GFM autolink rules, both in the Markdown source (what the parser's
// autolink extension sees) and in the decoded text (what a filter on the
// rendered HTML sees).
func TestEscapeNoAutolink(t *testing.T) {
	for _, in := range []string{
		"https://github.com/x/y/issues/1",
		"http://evil.example/x",
		"HTTPS://EXAMPLE.COM",
		"ftp://files.example",
		"Fetch/https://example.com/a_b",
		"(https://example.com)",
		"*http://example.com*",
		"www.example.com",
		"Get www.example.com",
		"size_www.example.com",
		"~www.example.com~",
		"(www.example.com)",
		"user@example.com",
		"mailto:user@example.com",
		"xmpp:user@example.com/res",
		"a.b+c-d_e@sub.example.org",
	} {
		if gfmAutolinks(in) == nil {
			t.Fatalf("test is broken: %q is not an autolink by the rules", in)
		}
		out := Escape(in)
		if links := gfmAutolinks(out); links != nil {
			t.Errorf("Escape(%q) = %q: autolinks %q", in, out, links)
		}
		dec := html.UnescapeString(out)
		if links := gfmAutolinks(dec); links != nil {
			t.Errorf("Escape(%q) decodes to %q, which autolinks %q", in, dec, links)
		}
		if got := strings.ReplaceAll(dec, "\u200b", ""); got != in {
			t.Errorf("Escape(%q) decodes to %q: the address is not shown as it is", in, got)
		}
	}
}

// TestEscapeLookAlikes checks that names differing only by an invisible
// character are told apart in the rendered text.
func TestEscapeLookAlikes(t *testing.T) {
	invisible := []rune{
		'\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad', // zero-width, soft hyphen
		'\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c', // bidi
	}
	plain := Escape("BenchmarkEncode")
	for _, r := range invisible {
		if !Invisible(r) {
			t.Errorf("Invisible(%U) = false", r)
		}
		name := "BenchmarkEnc" + string(r) + "ode"
		dec := html.UnescapeString(Escape(name))
		want := fmt.Sprintf("BenchmarkEnc<U+%04X>ode", r)
		if dec != want {
			t.Errorf("Escape(%q) renders as %q, want %q", name, dec, want)
		}
		if dec == html.UnescapeString(plain) {
			t.Errorf("%q renders like %q", name, "BenchmarkEncode")
		}
	}
	for _, r := range "aé€ -_/=.µ±→😀\u00a0" {
		if Invisible(r) {
			t.Errorf("Invisible(%q) = true", r)
		}
	}
	if got := Visible("ok"); got != "ok" {
		t.Errorf("Visible(%q) = %q", "ok", got)
	}
}

// TestReportsShowInvisible checks a look-alike name with a URL through
// both reports: shown and unlinked in Markdown, exact in JSON.
func TestReportsShowInvisible(t *testing.T) {
	name := "Enc\u200bode/https://github.com/x/y/issues/1-8"
	d, p := 0.2, 0.001
	v := gate.Verdict{Results: []gate.Result{{
		Comparison: stats.Comparison{Key: stats.Key{Package: "example.com/www.example.com", Name: name, Unit: "sec/op"},
			Base: summary(rep(1e-6, 10)...), Head: summary(rep(1.2e-6, 10)...)},
		Kind: gate.Time, Status: gate.Regression, Gated: true, Delta: &d, P: &p,
	}}}
	md := Markdown(v, Meta{}, Options{})
	r := checkGFM(t, md)
	if !r.hasCode("Enc<U+200B>ode/https://github.com/x/y/issues/1-8") || !r.hasCode("example.com/www.example.com") {
		t.Errorf("the names are not shown whole, their invisible character made visible: %q", r.code)
	}
	if links := gfmAutolinks(r.text); links != nil {
		t.Errorf("the Markdown report autolinks %q:\n%s", links, md)
	}
	if txt := Text(v, Meta{}, TextOptions{}); !strings.Contains(txt, "Enc<U+200B>ode/https://github.com/x/y/issues/1-8") {
		t.Errorf("the text report does not show the name with its invisible character made visible:\n%s", txt)
	}
	js, err := JSON(v, Meta{})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Benchmarks []struct{ Package, Name string }
	}
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Benchmarks) != 1 || doc.Benchmarks[0].Name != name || doc.Benchmarks[0].Package != "example.com/www.example.com" {
		t.Errorf("JSON does not keep the exact name: %+v", doc.Benchmarks)
	}
}

// Untrusted text printed as text is inert in a GitHub Actions log too
// (round 3's L7: a commit subject "##[error]x" printed by bisect in a run:
// step was a workflow command; the runner reads "##[" anywhere in a line
// and "::" at its start), and shows no control character.
func TestInert(t *testing.T) {
	for in, want := range map[string]string{
		"fix ##[error]x":                         "fix # #[error]x",
		"###[x] ####[y]":                         "## #[x] ### #[y]",
		"::set-output name=v::pass":              ": :set-output name=v::pass",
		"  ::add-mask::x":                        "  : :add-mask::x",
		"\n::error::x":                           " : :error::x",
		"a ::b":                                  "a ::b",
		"\x1b]0;pwned\x07\x1b[31mred ##[error]x": "<U+001B>]0;pwned<U+0007><U+001B>[31mred # #[error]x",
		"plain":                                  "plain",
	} {
		got := Inert(in)
		if got != want {
			t.Errorf("Inert(%q) = %q, want %q", in, got, want)
		}
		if cmds := githubtest.RunnerCommands(got); strings.Contains(got, "##[") || len(cmds) > 0 || strings.ContainsAny(got, "\x1b\x07\n\r") {
			t.Errorf("Inert(%q) = %q: still a command or a control character", in, got)
		}
	}
}

// FuzzInert: any text printed inert holds no workflow command the runner
// would run, no control character, and is valid UTF-8.
func FuzzInert(f *testing.F) {
	f.Add("\x1b]0;pwned\x07\x1b[31mred ##[error]x")
	f.Add("\u2003::add-mask::x")
	f.Fuzz(func(t *testing.T, in string) {
		got := Inert(in)
		if cmds := githubtest.RunnerCommands(got); len(cmds) > 0 {
			t.Fatalf("Inert(%q) = %q: the runner would run %v", in, got, cmds)
		}
		if strings.IndexFunc(got, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 || !utf8.ValidString(got) {
			t.Fatalf("Inert(%q) = %q: a control character or invalid UTF-8", in, got)
		}
	})
}
