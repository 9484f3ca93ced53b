package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/benchgate/benchgate/internal/config"
	"github.com/goccy/go-yaml"
)

// The documents a user reads: README.md and docs/*.md.
func userDocs(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"README.md"}, docs...)
}

// mdDoc is a Markdown file split into its prose (fenced code blocks and
// code spans left out) and its fenced code blocks.
type mdDoc struct {
	prose  []string // lines outside fences, code spans blanked
	blocks []mdBlock
}

type mdBlock struct {
	lang string
	line int // of the opening fence
	text string
}

var codeSpan = regexp.MustCompile("`+[^`]*`+")

func readDoc(t *testing.T, name string) mdDoc {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var d mdDoc
	var fence string
	var cur *mdBlock
	for i, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				d.blocks = append(d.blocks, *cur)
				fence, cur = "", nil
			} else {
				cur.text += line + "\n"
			}
			d.prose = append(d.prose, "")
			continue
		}
		if f := fenceOf(trimmed); f != "" {
			fence, cur = f, &mdBlock{lang: strings.TrimSpace(trimmed[len(f):]), line: i + 1}
			d.prose = append(d.prose, "")
			continue
		}
		d.prose = append(d.prose, codeSpan.ReplaceAllString(line, "``"))
	}
	if fence != "" {
		t.Errorf("%s:%d: a code block that never closes", name, cur.line)
	}
	return d
}

// fenceOf returns the fence that opens a code block on this line, or "".
func fenceOf(trimmed string) string {
	for _, c := range []string{"`", "~"} {
		n := len(trimmed) - len(strings.TrimLeft(trimmed, c))
		if n >= 3 {
			return strings.Repeat(c, n)
		}
	}
	return ""
}

// anchors returns the anchors GitHub gives the document's headings: the
// heading's text lower-cased, without punctuation, spaces made hyphens; a
// repeated one gets -1, -2, ...
func (d mdDoc) anchors() map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	for _, line := range d.prose {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimLeft(line, "#")
		if text == "" || text[0] != ' ' {
			continue
		}
		a := slug(strings.TrimSpace(text))
		if n := seen[a]; n > 0 {
			out[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// The code spans were blanked in readDoc, but the heading text of an
// anchor keeps their words: slug needs the original line. anchorsOf reads
// the headings again with their code spans.
func anchorsOf(t *testing.T, name string) map[string]bool {
	t.Helper()
	d := readDoc(t, name)
	b, _ := os.ReadFile(name)
	lines := strings.Split(string(b), "\n")
	for i := range d.prose {
		if strings.HasPrefix(d.prose[i], "#") {
			d.prose[i] = strings.ReplaceAll(lines[i], "`", "")
		}
	}
	return d.anchors()
}

var (
	inlineLink = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	refLink    = regexp.MustCompile(`^\s*\[[^\]]+\]:\s*(\S+)`)
)

// Every relative link of README.md, docs/*.md and the developers'
// documents (DESIGN.md, docs/dev/*.md) points at a file that exists, and
// every anchor at a heading of its document.
func TestDocLinks(t *testing.T) {
	anchors := map[string]map[string]bool{}
	dev, err := filepath.Glob("docs/dev/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range append(append(userDocs(t), "DESIGN.md"), dev...) {
		d := readDoc(t, name)
		for i, line := range d.prose {
			var targets []string
			for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
				targets = append(targets, m[1])
			}
			if m := refLink.FindStringSubmatch(line); m != nil {
				targets = append(targets, m[1])
			}
			for _, target := range targets {
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, anchor, _ := strings.Cut(target, "#")
				file := name
				if path != "" {
					file = filepath.Join(filepath.Dir(name), filepath.FromSlash(path))
					if _, err := os.Stat(file); err != nil {
						t.Errorf("%s:%d: link %s: no such file %s", name, i+1, target, file)
						continue
					}
				}
				if anchor == "" {
					continue
				}
				if !strings.HasSuffix(file, ".md") {
					t.Errorf("%s:%d: link %s: an anchor in a file that is not Markdown", name, i+1, target)
					continue
				}
				if anchors[file] == nil {
					anchors[file] = anchorsOf(t, file)
				}
				if !anchors[file][anchor] {
					t.Errorf("%s:%d: link %s: %s has no heading with anchor #%s", name, i+1, target, file, anchor)
				}
			}
		}
	}
}

func TestSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"A real +7 % change under a switching hog":         "a-real-7--change-under-a-switching-hog",
		"Every rule's error rates, simulated and asserted": "every-rules-error-rates-simulated-and-asserted",
		"--packages affected: which packages":              "--packages-affected-which-packages",
		"The policy file (.benchgate.yml)":                 "the-policy-file-benchgateyml",
	} {
		if got := slug(heading); got != want {
			t.Errorf("slug(%q) = %q, want %q", heading, got, want)
		}
	}
}

// Every workflow example sets persist-credentials: false on
// actions/checkout (the pull request's code runs in the benchgate step that
// follows), and every example with accept-label has the labeled event.
func TestWorkflowExamples(t *testing.T) {
	checkouts := 0
	for _, name := range userDocs(t) {
		for _, b := range readDoc(t, name).blocks {
			if b.lang != "yaml" {
				continue
			}
			steps := splitSteps(b.text)
			for _, s := range steps {
				if !strings.Contains(s, "uses: actions/checkout@") {
					continue
				}
				checkouts++
				if !regexp.MustCompile(`persist-credentials:\s*false`).MatchString(s) {
					t.Errorf("%s:%d: a checkout step without persist-credentials: false:\n%s", name, b.line, s)
				}
			}
			if strings.Contains(b.text, "accept-label:") {
				m := regexp.MustCompile(`types:\s*\[([^\]]*)\]`).FindStringSubmatch(b.text)
				if m == nil || !slices.Contains(strings.Fields(strings.ReplaceAll(m[1], ",", " ")), "labeled") {
					t.Errorf("%s:%d: a workflow with accept-label whose pull_request types do not list labeled", name, b.line)
				}
			}
		}
	}
	if checkouts == 0 {
		t.Error("no workflow example with actions/checkout found: the test reads nothing")
	}
}

// Every benchgate step of the workflow examples uses the action by its
// real name and sets only its inputs, with values it takes: no old input,
// args that parse.
func TestWorkflowInputs(t *testing.T) {
	steps := 0
	for _, name := range userDocs(t) {
		for _, b := range readDoc(t, name).blocks {
			if b.lang != "yaml" {
				continue
			}
			for _, s := range splitSteps(b.text) {
				m := regexp.MustCompile(`uses:\s*(\S*benchgate\S*)`).FindStringSubmatch(s)
				if m == nil || strings.Contains(m[1], "bencher") {
					continue
				}
				steps++
				if m[1] != "benchgate/benchgate@v1" {
					t.Errorf("%s:%d: uses: %s, want benchgate/benchgate@v1", name, b.line, m[1])
				}
				with := map[string]string{}
				if err := yaml.Unmarshal([]byte(withBlock(s)), &with); err != nil {
					t.Errorf("%s:%d: the with: block does not parse: %v\n%s", name, b.line, err, s)
					continue
				}
				env := map[string]string{}
				for k, v := range with {
					if !slices.ContainsFunc(config.Inputs, func(in config.Input) bool { return in.Name == k }) {
						t.Errorf("%s:%d: input %s is not an input of action.yml", name, b.line, k)
					}
					if !strings.Contains(v, "${{") {
						env[config.InputEnv(k)] = v
					}
				}
				if _, a, err := config.FromInputs(func(k string) string { return env[k] }); err != nil {
					t.Errorf("%s:%d: %v", name, b.line, err)
				} else if len(a.Deprecated) > 0 {
					t.Errorf("%s:%d: old inputs %+v", name, b.line, a.Deprecated)
				}
			}
		}
	}
	if steps == 0 {
		t.Error("no workflow example uses benchgate: the test reads nothing")
	}
}

// withBlock is the with: mapping of a step, as YAML ("{}" for none).
func withBlock(step string) string {
	lines := strings.Split(step, "\n")
	for i, l := range lines {
		trimmed := strings.TrimLeft(l, " -")
		rest, ok := strings.CutPrefix(trimmed, "with:")
		if !ok {
			continue
		}
		if rest = strings.TrimSpace(rest); rest != "" {
			return rest
		}
		indent := len(l) - len(strings.TrimLeft(l, " "))
		var body []string
		for _, m := range lines[i+1:] {
			if strings.TrimSpace(m) != "" && len(m)-len(strings.TrimLeft(m, " ")) <= indent {
				break
			}
			body = append(body, m)
		}
		return strings.Join(body, "\n")
	}
	return "{}"
}

// splitSteps cuts a YAML text at its list items ("- "), each item with the
// lines indented below it.
func splitSteps(text string) []string {
	var steps []string
	var cur []string
	indent := -1
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		n := len(line) - len(trimmed)
		if strings.HasPrefix(trimmed, "- ") && (indent < 0 || n <= indent) {
			if cur != nil {
				steps = append(steps, strings.Join(cur, "\n"))
			}
			cur, indent = []string{line}, n
			continue
		}
		if cur != nil && trimmed != "" && n <= indent {
			steps = append(steps, strings.Join(cur, "\n"))
			cur, indent = nil, -1
			continue
		}
		if cur != nil {
			cur = append(cur, line)
		}
	}
	if cur != nil {
		steps = append(steps, strings.Join(cur, "\n"))
	}
	return steps
}

// The README's first commands run the demo and the tests, and .ci/run runs
// exactly the README's test command.
func TestReadmeCommands(t *testing.T) {
	d := readDoc(t, "README.md")
	if len(d.blocks) == 0 || d.blocks[0].lang != "sh" {
		t.Fatal("README.md: the first code block is not the sh block of its first commands")
	}
	var cmds []string
	for _, line := range strings.Split(strings.TrimSpace(d.blocks[0].text), "\n") {
		cmd, _, _ := strings.Cut(line, "#")
		cmds = append(cmds, strings.TrimSpace(cmd))
	}
	if want := []string{"go run . demo", "go test ./..."}; !slices.Equal(cmds, want) {
		t.Fatalf("README.md's first commands are %q, want %q", cmds, want)
	}
	ci, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(strings.Split(string(ci), "\n"), cmds[1]) {
		t.Errorf(".ci/run has no line %q, the README's test command", cmds[1])
	}
}
