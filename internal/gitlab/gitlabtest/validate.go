package gitlabtest

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// JUnit is a JUnit XML report as GitLab reads it: suites of cases, each
// passed, failed or skipped, with its class (benchgate: the package), its
// name (the benchmark and unit), a file, the result's message and text.
type JUnit struct {
	XMLName  xml.Name `xml:"testsuites"`
	Name     string   `xml:"name,attr"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Suites   []struct {
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Errors   int         `xml:"errors,attr"`
		Skipped  int         `xml:"skipped,attr"`
		Cases    []JUnitCase `xml:"testcase"`
	} `xml:"testsuite"`
}

// A JUnitCase is one test case.
type JUnitCase struct {
	Name    string       `xml:"name,attr"`
	Class   string       `xml:"classname,attr"`
	File    string       `xml:"file,attr"`
	Failure *JUnitResult `xml:"failure"`
	Error   *JUnitResult `xml:"error"`
	Skipped *JUnitResult `xml:"skipped"`
	Output  string       `xml:"system-out"`
}

// A JUnitResult is a case's failure, error or skip.
type JUnitResult struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// ValidateCodeQuality checks a Code Quality report against GitLab's
// documented format: a JSON array of objects, each with the string
// fields description, check_name and fingerprint (unique), severity one of
// info, minor, major, critical, blocker, and location.path (relative, no
// "..") with location.lines.begin a positive integer (or
// location.positions.begin.line). Nothing else may be at the top.
func ValidateCodeQuality(data []byte) ([]map[string]any, error) {
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

// ValidateJUnit checks a JUnit XML report against the JUnit schema GitLab
// reads (Ant's and Jenkins' junit-10 shape): one <testsuites> root with
// name, tests, failures, errors and skipped; <testsuite> children with
// name and the counts, which add up to their cases; <testcase> with name
// and classname (file optional), holding at most one of <failure>,
// <error>, <skipped> (message, type) and <system-out>; no other element
// or attribute, no text outside them, no character XML forbids.
func ValidateJUnit(data []byte) (*JUnit, error) {
	allowed := map[string][]string{
		"testsuites": {"name", "tests", "failures", "errors", "skipped", "time"},
		"testsuite":  {"name", "tests", "failures", "errors", "skipped", "time", "timestamp", "hostname", "id", "package"},
		"testcase":   {"name", "classname", "file", "time", "assertions"},
		"failure":    {"message", "type"}, "error": {"message", "type"}, "skipped": {"message", "type"},
		"system-out": {}, "system-err": {},
	}
	parents := map[string]string{"testsuites": "", "testsuite": "testsuites", "testcase": "testsuite",
		"failure": "testcase", "error": "testcase", "skipped": "testcase", "system-out": "testcase", "system-err": "testcase"}
	required := map[string][]string{"testsuites": {"tests", "failures", "errors"}, "testsuite": {"name", "tests", "failures", "errors", "skipped"}, "testcase": {"name", "classname"}}
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
	var doc JUnit
	if err := xml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	total := [4]int{}
	for _, s := range doc.Suites {
		n := [4]int{}
		for _, c := range s.Cases {
			n[0]++
			switch {
			case c.Failure != nil:
				n[1]++
			case c.Error != nil:
				n[2]++
			case c.Skipped != nil:
				n[3]++
			}
		}
		if n != [4]int{s.Tests, s.Failures, s.Errors, s.Skipped} {
			return nil, fmt.Errorf("suite %s counts tests %d failures %d errors %d skipped %d, its cases %v", s.Name, s.Tests, s.Failures, s.Errors, s.Skipped, n)
		}
		for i := range n {
			total[i] += n[i]
		}
	}
	if total != [4]int{doc.Tests, doc.Failures, doc.Errors, doc.Skipped} {
		return nil, fmt.Errorf("testsuites counts %d %d %d %d, its suites %v", doc.Tests, doc.Failures, doc.Errors, doc.Skipped, total)
	}
	return &doc, nil
}
