package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/stats"
)

// passingVerdict judges the fixture's base against itself.
func passingVerdict(t *testing.T) gate.Verdict {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "base.txt"))
	if err != nil {
		t.Fatal(err)
	}
	set, err := stats.Load(stats.Input{Name: "base.txt", R: bytes.NewReader(b)}, stats.Input{Name: "head.txt", R: bytes.NewReader(b)})
	if err != nil {
		t.Fatal(err)
	}
	p := gate.DefaultPolicy()
	v := gate.Judge(stats.CompareAlpha(set, 0.95, p.Alpha), nil, p)
	if !v.Pass {
		t.Fatal("base against itself fails")
	}
	return v
}

func locateAll(pkg, name string) (string, int) {
	return strings.TrimPrefix(pkg, "example.com/") + "/bench_test.go", 10 + len(name)
}

// The JUnit report validates against the JUnit format GitLab reads, has
// a failed case for each row that fails the gate and for nothing else,
// and fails exactly when the verdict does.
func TestJUnit(t *testing.T) {
	v, m := fixtureVerdict(t)
	for _, tc := range []struct {
		name string
		v    gate.Verdict
	}{{"fixture (fail)", v}, {"A/A (pass)", passingVerdict(t)}} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := JUnit(tc.v, m, locateAll)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := validateJUnit(out)
			if err != nil {
				t.Fatalf("invalid JUnit: %v\n%s", err, out)
			}
			var wantFailed, gotFailed []string
			for _, r := range tc.v.Results {
				if r.Fails() {
					wantFailed = append(wantFailed, Visible(r.Package)+" "+Visible(r.Name+" "+r.Unit))
				}
			}
			passed, skipped := 0, 0
			for _, s := range doc.Suites {
				for _, c := range s.Cases {
					switch {
					case c.Failure != nil:
						gotFailed = append(gotFailed, c.Class+" "+c.Name)
						if c.Failure.Message == "" || strings.TrimSpace(c.Failure.Text) == "" && !strings.Contains(c.Name, "(failed on head)") {
							t.Errorf("failed case %s %s without its change and why: %+v", c.Class, c.Name, c.Failure)
						}
					case c.Skipped != nil:
						skipped++
					default:
						passed++
					}
				}
			}
			// The head failure without a row of its own is a case of
			// its own: the failed rows are the others.
			var rowFailed []string
			for _, f := range gotFailed {
				if !strings.HasSuffix(f, "(failed on head)") && !strings.HasPrefix(f, "benchgate ") {
					rowFailed = append(rowFailed, f)
				}
			}
			slices.Sort(rowFailed)
			slices.Sort(wantFailed)
			if !slices.Equal(rowFailed, wantFailed) {
				t.Errorf("failed cases %q, want the rows that fail the gate %q", rowFailed, wantFailed)
			}
			if (len(gotFailed) > 0) == tc.v.Pass {
				t.Errorf("%d failed cases on a verdict that passes=%v", len(gotFailed), tc.v.Pass)
			}
			if passed == 0 || passed+skipped+len(gotFailed) < len(tc.v.Results) {
				t.Errorf("%d passed, %d skipped, %d failed for %d rows", passed, skipped, len(gotFailed), len(tc.v.Results))
			}
			if !tc.v.Pass {
				// A regression names its benchmark's file and line, its
				// change and why.
				if !bytes.Contains(out, []byte(`file="codec/bench_test.go#L`)) || !bytes.Contains(out, []byte("time +")) {
					t.Errorf("no located time regression with its change:\n%s", out)
				}
			}
		})
	}
}

// The hostile names of the fixture stay data: the XML parses, and no
// element or attribute comes from a name.
func TestJUnitHostile(t *testing.T) {
	v, m := fixtureVerdict(t)
	v.Results = append(v.Results, gate.Result{
		Comparison: stats.Comparison{Key: stats.Key{Package: "example.com/x\"><testcase name=\"forged", Name: "Sly]]></failure>\x01\u200b", Unit: "sec/op"}},
		Kind:       gate.Time, Status: gate.Regression, Gated: true,
	})
	out, err := JUnit(v, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := validateJUnit(out)
	if err != nil {
		t.Fatalf("invalid JUnit: %v", err)
	}
	found := false
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			if strings.HasPrefix(c.Name, "forged") {
				t.Errorf("a name made a test case: %+v", c)
			}
			if strings.HasPrefix(c.Name, "Sly") {
				found = true
				if !strings.Contains(c.Name, "<U+200B>") {
					t.Errorf("invisible character not shown: %q", c.Name)
				}
			}
		}
	}
	if !found {
		t.Error("the hostile row is missing")
	}
}

// The Code Quality report has GitLab's required fields with their types,
// one issue per regression and head failure, unique fingerprints, paths
// relative to the repository.
func TestCodeQuality(t *testing.T) {
	v, m := fixtureVerdict(t)
	out, err := CodeQuality(v, m, locateAll, "go.mod")
	if err != nil {
		t.Fatal(err)
	}
	issues, err := validateCodeQuality(out)
	if err != nil {
		t.Fatalf("invalid Code Quality report: %v\n%s", err, out)
	}
	want := 0
	for _, r := range v.Results {
		if r.Status == gate.Regression || (r.Status == gate.Failed && r.Reason.Code == gate.ReasonFailedHead) {
			want++
		}
	}
	if want == 0 || len(issues) < want {
		t.Fatalf("%d issues, want at least the %d regressions and head failures", len(issues), want)
	}
	sev := map[string]int{}
	for _, is := range issues {
		sev[is["severity"].(string)]++
		if !strings.HasPrefix(is["check_name"].(string), "benchgate/") {
			t.Errorf("check_name %v", is["check_name"])
		}
	}
	if sev["major"]+sev["critical"] == 0 {
		t.Errorf("no gating regression among the issues: %v", sev)
	}
	// The same findings give the same fingerprints on the next push.
	again, _ := CodeQuality(v, m, func(pkg, name string) (string, int) { f, l := locateAll(pkg, name); return f, l + 3 }, "go.mod")
	ag, _ := validateCodeQuality(again)
	for i := range issues {
		if issues[i]["fingerprint"] != ag[i]["fingerprint"] {
			t.Errorf("fingerprint moved with the line: %v, %v", issues[i]["fingerprint"], ag[i]["fingerprint"])
		}
	}
	// A passing A/A verdict: an empty array, still valid.
	out, err = CodeQuality(passingVerdict(t), m, nil, "go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if is, err := validateCodeQuality(out); err != nil || len(is) != 0 {
		t.Errorf("A/A: %d issues, %v:\n%s", len(is), err, out)
	}
	// Unlocated: at the fallback, line 1.
	out, _ = CodeQuality(v, m, nil, "sub/go.mod")
	is, err := validateCodeQuality(out)
	if err != nil || is[0]["location"].(map[string]any)["path"] != "sub/go.mod" {
		t.Errorf("unlocated issue: %v %v", is, err)
	}
}

// validateCodeQuality checks a Code Quality report against GitLab's
// documented format: a JSON array of objects, each with the string
// fields description, check_name and fingerprint (unique), severity one of
// info, minor, major, critical, blocker, and location.path (relative, no
// "..") with location.lines.begin a positive integer (or
// location.positions.begin.line). Nothing else may be at the top.
func validateCodeQuality(data []byte) ([]map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var issues []map[string]any
	if err := dec.Decode(&issues); err != nil {
		return nil, fmt.Errorf("not a JSON array of objects: %w", err)
	}
	if dec.More() {
		return nil, errors.New("data after the array")
	}
	if issues == nil {
		return nil, errors.New("null, not an array")
	}
	seen := map[string]bool{}
	for i, is := range issues {
		for _, k := range []string{"description", "check_name", "fingerprint", "severity"} {
			s, ok := is[k].(string)
			if !ok || s == "" {
				return nil, fmt.Errorf("issue %d: %s is %T %v, want a non-empty string", i, k, is[k], is[k])
			}
		}
		if !slices.Contains([]string{"info", "minor", "major", "critical", "blocker"}, is["severity"].(string)) {
			return nil, fmt.Errorf("issue %d: severity %q", i, is["severity"])
		}
		fp := is["fingerprint"].(string)
		if seen[fp] {
			return nil, fmt.Errorf("issue %d: fingerprint %s repeated", i, fp)
		}
		seen[fp] = true
		loc, ok := is["location"].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("issue %d: location is %T", i, is["location"])
		}
		path, ok := loc["path"].(string)
		if !ok || path == "" || strings.HasPrefix(path, "/") || slices.Contains(strings.Split(path, "/"), "..") || strings.Contains(path, `\`) {
			return nil, fmt.Errorf("issue %d: location.path %v, want a relative slash path", i, loc["path"])
		}
		var begin any
		if lines, ok := loc["lines"].(map[string]any); ok {
			begin = lines["begin"]
		} else if pos, ok := loc["positions"].(map[string]any); ok {
			if b, ok := pos["begin"].(map[string]any); ok {
				begin = b["line"]
			}
		}
		n, ok := begin.(json.Number)
		if v, err := strconv.Atoi(string(n)); !ok || err != nil || v < 1 {
			return nil, fmt.Errorf("issue %d: location.lines.begin %v, want a positive integer", i, begin)
		}
	}
	return issues, nil
}

// validateJUnit checks a JUnit XML report against the JUnit schema GitLab
// reads (Ant's and Jenkins' junit-10 shape): one <testsuites> root with
// name, tests, failures, errors and skipped; <testsuite> children with
// name and the counts, which add up to their cases; <testcase> with name
// and classname (file optional), holding at most one of <failure>,
// <error>, <skipped> (message, type) and <system-out>; no other element
// or attribute, no text outside them, no character XML forbids.
func validateJUnit(data []byte) (*junitSuites, error) {
	allowed := map[string][]string{
		"testsuites": {"name", "tests", "failures", "errors", "skipped", "time"},
		"testsuite":  {"name", "tests", "failures", "errors", "skipped", "time", "timestamp", "hostname", "id", "package"},
		"testcase":   {"name", "classname", "file", "time", "assertions"},
		"failure":    {"message", "type"}, "error": {"message", "type"}, "skipped": {"message", "type"},
		"system-out": {}, "system-err": {},
	}
	parents := map[string]string{"testsuites": "", "testsuite": "testsuites", "testcase": "testsuite",
		"failure": "testcase", "error": "testcase", "skipped": "testcase", "system-out": "testcase", "system-err": "testcase"}
	required := map[string][]string{"testsuites": {"tests", "failures"}, "testsuite": {"name", "tests", "failures", "errors", "skipped"}, "testcase": {"name", "classname"}}
	counts := map[string]bool{"tests": true, "failures": true, "errors": true, "skipped": true}
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	var stack []string
	results := 0
	roots := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name := t.Name.Local
			parent := ""
			if len(stack) > 0 {
				parent = stack[len(stack)-1]
			}
			want, known := parents[name]
			if !known || want != parent || t.Name.Space != "" {
				return nil, fmt.Errorf("<%s> inside <%s>", name, parent)
			}
			if name == "testsuites" {
				roots++
			}
			if name == "testcase" {
				results = 0
			}
			if name == "failure" || name == "error" || name == "skipped" {
				results++
				if results > 1 {
					return nil, errors.New("a testcase with more than one result")
				}
			}
			have := map[string]bool{}
			for _, a := range t.Attr {
				if !slices.Contains(allowed[name], a.Name.Local) || a.Name.Space != "" {
					return nil, fmt.Errorf("<%s %s=...>: unknown attribute", name, a.Name.Local)
				}
				if counts[a.Name.Local] {
					if n, err := strconv.Atoi(a.Value); err != nil || n < 0 {
						return nil, fmt.Errorf("<%s %s=%q>: not a count", name, a.Name.Local, a.Value)
					}
				}
				have[a.Name.Local] = true
			}
			for _, r := range required[name] {
				if !have[r] {
					return nil, fmt.Errorf("<%s> without %s", name, r)
				}
			}
			stack = append(stack, name)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				switch stack[len(stack)-1] {
				case "failure", "error", "skipped", "system-out", "system-err":
					continue
				}
			}
			if strings.TrimSpace(string(t)) != "" {
				return nil, fmt.Errorf("text %q outside a result", t)
			}
		}
	}
	if roots != 1 {
		return nil, fmt.Errorf("%d <testsuites> roots", roots)
	}
	var doc junitSuites
	if err := xml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	total := [3]int{}
	for _, s := range doc.Suites {
		n := [3]int{}
		for _, c := range s.Cases {
			n[0]++
			if c.Failure != nil {
				n[1]++
			}
			if c.Skipped != nil {
				n[2]++
			}
		}
		if n != [3]int{s.Tests, s.Failures, s.Skipped} || s.Errors != 0 {
			return nil, fmt.Errorf("suite %s counts tests %d failures %d skipped %d, its cases %v", s.Name, s.Tests, s.Failures, s.Skipped, n)
		}
		for i := range n {
			total[i] += n[i]
		}
	}
	if total != [3]int{doc.Tests, doc.Failures, doc.Skipped} {
		return nil, fmt.Errorf("testsuites counts %d %d %d, its suites %v", doc.Tests, doc.Failures, doc.Skipped, total)
	}
	return &doc, nil
}

// The validators refuse what GitLab would not read.
func TestValidatorsRefuse(t *testing.T) {
	for _, bad := range []string{
		`<testsuite name="x" tests="1" failures="0" errors="0" skipped="0"><testcase name="a" classname="p"/></testsuite>`,
		`<testsuites tests="1" failures="0"><testsuite name="x" tests="2" failures="0" errors="0" skipped="0"><testcase name="a" classname="p"/></testsuite></testsuites>`,
		`<testsuites tests="1" failures="1"><testsuite name="x" tests="1" failures="1" errors="0" skipped="0"><testcase name="a"><failure message="m"/></testcase></testsuite></testsuites>`,
		`<testsuites tests="1" failures="0"><testsuite name="x" tests="1" failures="0" errors="0" skipped="0"><testcase name="a" classname="p" bogus="1"/></testsuite></testsuites>`,
		`<testsuites tests="1" failures="2"><testsuite name="x" tests="1" failures="2" errors="0" skipped="0"><testcase name="a" classname="p"><failure message="m"/><failure message="n"/></testcase></testsuite></testsuites>`,
		"<testsuites tests=\"0\" failures=\"0\">\x01</testsuites>",
		`<testsuites tests="x" failures="0"></testsuites>`,
	} {
		if _, err := validateJUnit([]byte(bad)); err == nil {
			t.Errorf("validateJUnit accepted %s", bad)
		}
	}
	for _, bad := range []string{
		`{}`, `null`, `[{"description":"d","check_name":"c","fingerprint":"f","severity":"high","location":{"path":"a.go","lines":{"begin":1}}}]`,
		`[{"description":"d","check_name":"c","fingerprint":"f","severity":"major","location":{"path":"/abs.go","lines":{"begin":1}}}]`,
		`[{"description":"d","check_name":"c","fingerprint":"f","severity":"major","location":{"path":"a.go","lines":{"begin":"1"}}}]`,
		`[{"description":"d","check_name":"c","severity":"major","location":{"path":"a.go","lines":{"begin":1}}}]`,
		`[{"description":"d","check_name":"c","fingerprint":"f","severity":"major","location":{"path":"a.go","lines":{"begin":1}}},{"description":"d","check_name":"c","fingerprint":"f","severity":"major","location":{"path":"a.go","lines":{"begin":2}}}]`,
	} {
		if _, err := validateCodeQuality([]byte(bad)); err == nil {
			t.Errorf("validateCodeQuality accepted %s", bad)
		}
	}
}
