package report

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// escapedASCII lists the ASCII characters that Escape replaces with numeric
// character references: every character that can start Markdown or HTML
// syntax inside a line on GitHub. Table cells (|), HTML, entities and
// autolinks (< > &), code spans (`), emphasis and strikethrough (* _ ~),
// links, images and footnotes ([ ]: without them "(", ")" and "!" are
// plain text), backslash escapes (\), math ($), mentions (@) and issue
// references (#).
const escapedASCII = "|<>&`*_~[]\\$@#"

// zwsp is a zero-width space, written after "@", "#" and "GH-" so that
// GitHub, which looks for mentions and references in the rendered text
// (after character references are decoded), finds none.
const zwsp = "&#8203;"

// maxInline is the longest untrusted string, in runes, shown inline.
const maxInline = 200

// Escape makes an untrusted string (a benchmark, package, unit or ref name,
// a warning) safe to place anywhere inside a line of GitHub Markdown,
// including a table cell and HTML element content:
//
//   - the ASCII characters | < > & ` * _ ~ [ ] \ $ @ # become
//     numeric character references (&#124; &#60; ...), which render as
//     the character but are never syntax;
//   - "@" and "#" are followed by a zero-width space, and so is the "-" of
//     "GH-": no @mention, team mention or issue reference can form;
//   - no autolink can form: a zero-width space follows the ":" of "://"
//     (GitHub's extended URL autolinks, http:// and https://, and any
//     other scheme) and precedes the "." of "www." (extended www
//     autolinks); the "@" of an address already has one (extended email
//     autolinks). A URL in a name is text: it creates no link and no
//     cross-reference to the issue or pull request it names;
//   - invisible characters (see [Invisible]: zero-width spaces and
//     joiners, the word joiner, the byte order mark, the soft hyphen, bidi
//     overrides, isolates and marks, which can make two names look alike
//     or reorder what a reviewer sees) are shown by their code point,
//     "<U+200B>" (escaped as above);
//   - line breaks and tabs become spaces; other control characters and
//     invalid UTF-8 become U+FFFD.
//
// Escape does not shorten its input; the report truncates long names
// before escaping them. The JSON report keeps every name exactly as
// measured: it is data, and its readers escape for their own output.
func Escape(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
			i++
			continue
		}
		switch {
		case r == '@' || r == '#':
			writeRef(&b, r)
			b.WriteString(zwsp)
		case r == '-' && i >= 2 && strings.EqualFold(s[i-2:i], "GH"):
			writeRef(&b, r)
			b.WriteString(zwsp)
		case r == ':' && strings.HasPrefix(s[i+1:], "//"):
			b.WriteString(":" + zwsp)
		case r == '.' && i >= 3 && strings.EqualFold(s[i-3:i], "www"):
			b.WriteString(zwsp + ".")
		case r < utf8.RuneSelf && strings.IndexByte(escapedASCII, byte(r)) >= 0:
			writeRef(&b, r)
		case r == '\n' || r == '\r' || r == '\t' || r == '\v' || r == '\f' || r == '\u2028' || r == '\u2029' || r == '\u0085':
			b.WriteByte(' ')
		case Invisible(r):
			b.WriteString("&#60;" + codePoint(r) + "&#62;")
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

func writeRef(b *strings.Builder, r rune) {
	b.WriteString("&#")
	b.WriteString(strconv.Itoa(int(r)))
	b.WriteByte(';')
}

// Invisible reports whether r shows nothing, or changes how the text
// around it is shown, so that two names that differ by it look alike: the
// format characters (Unicode category Cf), among them the zero-width space,
// non-joiner and joiner (U+200B–U+200D), the word joiner (U+2060), the byte
// order mark (U+FEFF), the soft hyphen (U+00AD) and the bidirectional
// controls (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C); the
// combining grapheme joiner (U+034F); and the Hangul fillers (U+115F,
// U+1160, U+3164, U+FFA0), letters drawn as blanks.
func Invisible(r rune) bool {
	return unicode.Is(unicode.Cf, r) || r == '\u034f' ||
		r == '\u115f' || r == '\u1160' || r == '\u3164' || r == '\uffa0'
}

// codePoint names r as "U+200B".
func codePoint(r rune) string {
	return fmt.Sprintf("U+%04X", r)
}

// Visible replaces every invisible character of s (see [Invisible]) by its
// code point in angle brackets, "a<U+200B>b", for plain-text output; it
// changes nothing else.
func Visible(s string) string {
	if strings.IndexFunc(s, Invisible) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if Invisible(r) {
			b.WriteString("<" + codePoint(r) + ">")
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// truncate shortens s to at most n runes, marking the cut with "…".
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, count := 0, 0
	for j := range s {
		if count == n-1 {
			i = j
			break
		}
		count++
	}
	return s[:i] + "…"
}

// Limits on failure output shown in a report.
const (
	maxOutputLines = 20
	maxOutputLine  = 300 // runes
)

// codeBlock renders untrusted multi-line output as a fenced code block that
// the output cannot close: the fence is longer than any run of backticks in
// it. The output is limited to maxOutputLines lines of maxOutputLine runes;
// control characters (but tabs) and invalid UTF-8 become U+FFFD, invisible
// characters their code point ("<U+202E>", see [Visible]). Inside a
// code block nothing is Markdown, HTML, a mention or a reference.
func codeBlock(out string) string {
	lines := outputLines(out)
	longest := 0
	for _, l := range lines {
		run := 0
		for _, r := range l {
			if r == '`' {
				run++
				longest = max(longest, run)
			} else {
				run = 0
			}
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + "text\n" + strings.Join(lines, "\n") + "\n" + fence + "\n"
}

// outputLines are the lines of captured output shown in a report: at most
// maxOutputLines lines of maxOutputLine runes, then a line saying how
// many more; control characters (but tabs) and invalid UTF-8 become
// U+FFFD, invisible characters their code point ("<U+202E>", see
// [Visible]).
func outputLines(out string) []string {
	out = strings.ToValidUTF8(out, "\uFFFD")
	out = strings.ReplaceAll(out, "\r\n", "\n")
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	more := 0
	if len(lines) > maxOutputLines {
		more = len(lines) - maxOutputLines
		lines = lines[:maxOutputLines]
	}
	for i, l := range lines {
		l = Visible(strings.Map(func(r rune) rune {
			if r == '\t' {
				return r
			}
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' {
				return utf8.RuneError
			}
			return r
		}, l))
		lines[i] = truncate(l, maxOutputLine)
	}
	if more > 0 {
		lines = append(lines, "… "+strconv.Itoa(more)+" more lines")
	}
	return lines
}

// codeSpan renders a trusted single-line string (a path, a command) as an
// inline code span, with a backtick fence longer than any run inside it.
func codeSpan(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// mermaidPunct lists the ASCII punctuation that chartText keeps: none
// of it is Mermaid, Markdown or HTML syntax inside a quoted label.
const mermaidPunct = " /=.,_+-()"

// chartText makes an untrusted string (a benchmark or package name) safe
// as a quoted label ("...") in a Mermaid diagram inside a ```mermaid
// fence, and shortens it to at most n runes ("…" marks the cut). Only
// letters, digits and the characters of mermaidPunct are kept; every
// other character becomes "_": quotes and brackets (which would end the
// label or the list), backticks (Mermaid's Markdown strings, and the
// fence), "%" (the "%%" of comments and directives), "#" and ";" (entity
// codes such as #quot;), "<", ">", "&", braces, colons, line breaks, and
// control, format (bidi) and invalid characters. The result has no
// newline and no backtick, so it cannot close the fence.
func chartText(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf {
			if ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') || strings.ContainsRune(mermaidPunct, r) {
				return r
			}
			return '_'
		}
		if r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return r
		}
		return '_'
	}, strings.ToValidUTF8(s, "\uFFFD"))
	return truncate(s, n)
}

// neutral makes untrusted text inert on a terminal, inside a Markdown
// code span and in a GitHub Actions log: line breaks and tabs become
// spaces; other control characters (the escape of ANSI sequences among
// them) and invisible ones (see [Invisible]) are shown by their code
// point, "<U+001B>", "<U+202E>"; invalid UTF-8 becomes U+FFFD; the two
// ways the runner reads a workflow command from a line are broken: "##["
// anywhere becomes "# #[", and "::" at the start (the text may start a
// line) ": :". Everything else is kept.
func neutral(s string) string {
	return breakCommands(visibleControls(s))
}

// visibleControls is neutral without breakCommands.
func visibleControls(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || r < 0x20 || (r >= 0x7f && r < 0xa0) || r == '\u2028' || r == '\u2029' || Invisible(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r == '\n' || r == '\r' || r == '\t' || r == '\v' || r == '\f' || r == '\u2028' || r == '\u2029' || r == '\u0085':
			b.WriteByte(' ')
		case r < 0x20 || (r >= 0x7f && r < 0xa0) || Invisible(r):
			b.WriteString("<" + codePoint(r) + ">")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Inert is untrusted text made safe to print on one line of a terminal or
// a GitHub Actions log, as the text report prints it (see neutral): no
// control character, no workflow command.
func Inert(s string) string { return neutral(s) }

// breakCommands breaks "##[" everywhere and a leading "::" (after any
// white space, which the runner trims).
func breakCommands(s string) string {
	if strings.HasPrefix(strings.TrimLeftFunc(s, unicode.IsSpace), "::") {
		i := strings.Index(s, "::")
		s = s[:i] + ": :" + s[i+2:]
	}
	return strings.ReplaceAll(s, "##[", "# #[")
}
