package report

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/gitlab/gitlabtest"
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
			doc, err := gitlabtest.ValidateJUnit(out)
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
	doc, err := gitlabtest.ValidateJUnit(out)
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
	issues, err := gitlabtest.ValidateCodeQuality(out)
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
	ag, _ := gitlabtest.ValidateCodeQuality(again)
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
	if is, err := gitlabtest.ValidateCodeQuality(out); err != nil || len(is) != 0 {
		t.Errorf("A/A: %d issues, %v:\n%s", len(is), err, out)
	}
	// Unlocated: at the fallback, line 1.
	out, _ = CodeQuality(v, m, nil, "sub/go.mod")
	is, err := gitlabtest.ValidateCodeQuality(out)
	if err != nil || is[0]["location"].(map[string]any)["path"] != "sub/go.mod" {
		t.Errorf("unlocated issue: %v %v", is, err)
	}
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
		if _, err := gitlabtest.ValidateJUnit([]byte(bad)); err == nil {
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
		if _, err := gitlabtest.ValidateCodeQuality([]byte(bad)); err == nil {
			t.Errorf("validateCodeQuality accepted %s", bad)
		}
	}
}
