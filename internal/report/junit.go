package report

import (
	"encoding/xml"
	"fmt"
	"strings"

	"github.com/benchgate/benchgate/internal/gate"
)

// A Locator finds the benchmark function behind a row: its file, relative
// to the repository's root with forward slashes, and line; "" and 0 when
// it cannot. The CLI searches the checked-out head for it.
type Locator func(pkg, name string) (file string, line int)

// JUnit renders v as a JUnit XML report for a CI's test view (GitLab's
// merge request test summary, artifacts:reports:junit): one test suite
// per package, one test case per row, named by the benchmark and unit,
// with the package as its class. A row that fails the gate is a failed
// case whose message is its change and whose text says why; a row the
// policy ignores is skipped; every other row passes, its status and why in
// the case's output. A head failure no row stands for, and a finding that
// fails the gate without a row (a required benchmark missing, a policy
// file head breaks, worse CPU scaling), are cases of the suite
// "benchgate". So the report has a failed case exactly when the verdict is
// fail. Names are the change's text: invisible characters are shown by
// their code point; encoding/xml escapes the rest.
func JUnit(v gate.Verdict, m Meta, locate Locator) ([]byte, error) {
	root := junitSuites{Name: "benchgate"}
	suites := map[string]*junitSuite{}
	var order []string
	suite := func(name string) *junitSuite {
		if s, ok := suites[name]; ok {
			return s
		}
		s := &junitSuite{Name: name}
		suites[name] = s
		order = append(order, name)
		return s
	}
	for _, r := range v.Results {
		c := junitCase{Class: Visible(r.Package), Name: Visible(r.Name + " " + r.Unit)}
		if locate != nil {
			if file, line := locate(r.Package, r.Name); file != "" {
				c.File = file
				if line > 0 {
					c.File += fmt.Sprintf("#L%d", line)
				}
			}
		}
		why := Visible(ReasonText(r))
		switch {
		case r.Fails():
			c.Failure = &junitResult{Type: string(r.Status), Message: Visible(Plain(blockingChange(r))), Text: why}
		case r.Status == gate.Ignored:
			c.Skipped = &junitResult{Message: why}
		default:
			out := statusWord(r)
			if r.Accepted != nil {
				out = "regression, accepted on purpose"
			}
			c.Output = out + ": " + why
		}
		suite(r.Package).add(c)
	}
	for _, f := range v.HeadFailures() {
		if coveredByRow(v.Results, f) {
			continue
		}
		name := strings.TrimPrefix(f.Name, "Benchmark")
		if name == "" {
			name = "(the package)"
		}
		c := junitCase{Class: Visible(f.Package), Name: Visible(name) + " (failed on head)"}
		msg := Visible(firstLine(f.Message, 300))
		if v.Policy.FailOnFailure {
			c.Failure = &junitResult{Type: string(gate.Failed), Message: "failed on head: " + msg, Text: Visible(f.Message)}
		} else {
			c.Skipped = &junitResult{Message: "failed on head, not gated (fail-on without failure): " + msg}
		}
		suite(f.Package).add(c)
	}
	for _, w := range v.Warnings {
		if (w.Code == gate.WarnRequiredMissing || w.Code == gate.WarnHeadPolicyInvalid) && w.Gated {
			suite("benchgate").add(junitCase{Class: "benchgate", Name: "policy: " + string(w.Code),
				Failure: &junitResult{Type: string(w.Code), Message: Visible(WarningText(w))}})
		}
	}
	if v.Policy.FailOnScaling {
		for _, s := range v.ScalingWorse() {
			suite("benchgate").add(junitCase{Class: Visible(s.Package), Name: Visible(s.Name) + " (CPU scaling)",
				Failure: &junitResult{Type: string(gate.WarnScalingWorse), Message: "parallel scaling got worse"}})
		}
	}
	if !v.Pass && !hasFailure(suites) {
		// A verdict that fails on something above did not name: the
		// widget must not show it green.
		suite("benchgate").add(junitCase{Class: "benchgate", Name: "verdict",
			Failure: &junitResult{Type: "verdict", Message: Visible(strings.TrimSpace(Plain(headline(v, m))))}})
	}
	for _, name := range order {
		s := suites[name]
		root.Tests += s.Tests
		root.Failures += s.Failures
		root.Skipped += s.Skipped
		root.Suites = append(root.Suites, *s)
	}
	out, err := xml.MarshalIndent(root, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode JUnit report: %w", err)
	}
	return append(append([]byte(xml.Header), out...), '\n'), nil
}

func hasFailure(suites map[string]*junitSuite) bool {
	for _, s := range suites {
		if s.Failures > 0 {
			return true
		}
	}
	return false
}

// coveredByRow reports whether a head failure is shown by a failed row
// of its benchmark already.
func coveredByRow(rows []gate.Result, f gate.Failure) bool {
	name := strings.TrimPrefix(f.Name, "Benchmark")
	for _, r := range rows {
		if r.Status == gate.Failed && r.Reason.Code == gate.ReasonFailedHead && r.Package == f.Package && strings.HasPrefix(r.Name, name) {
			return true
		}
	}
	return false
}

// The JUnit XML elements, in the shape of Ant's and Jenkins' schema that
// GitLab reads (docs/gitlab.md#reports).
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name    string       `xml:"name,attr"`
	Class   string       `xml:"classname,attr"`
	File    string       `xml:"file,attr,omitempty"`
	Failure *junitResult `xml:"failure,omitempty"`
	Skipped *junitResult `xml:"skipped,omitempty"`
	Output  string       `xml:"system-out,omitempty"`
}

type junitResult struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

func (s *junitSuite) add(c junitCase) {
	s.Tests++
	switch {
	case c.Failure != nil:
		s.Failures++
	case c.Skipped != nil:
		s.Skipped++
	}
	s.Cases = append(s.Cases, c)
}
