package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/benchgate/benchgate/internal/gate"
)

// CodeQuality renders v's regressions as a Code Quality report (GitLab's
// artifacts:reports:codequality): a JSON array of the Code Climate issue
// subset GitLab documents, one issue per regression at its benchmark
// function's file and line, as the action's annotations place them, and
// one per benchmark that fails on head. Each has a description (the row,
// its change and why), a check_name ("benchgate/time", ".../allocs",
// ".../failure", ...), a fingerprint that stays the same from push to push
// while the finding does (package, benchmark, unit and check), a severity
// (critical: fails the gate at +100 % or more, or fails on head; major:
// fails the gate; minor: reported, not gated; info: accepted on purpose)
// and a location: path (relative to the repository's root) and
// lines.begin. A row whose function is not found is placed at fallback
// (the module's go.mod), line 1.
func CodeQuality(v gate.Verdict, m Meta, locate Locator, fallback string) ([]byte, error) {
	issues := []cqIssue{}
	place := func(pkg, name string) cqLocation {
		loc := cqLocation{Path: fallback, Lines: cqLines{Begin: 1}}
		if locate != nil {
			if file, line := locate(pkg, name); file != "" {
				loc.Path = file
				loc.Lines.Begin = max(line, 1)
			}
		}
		return loc
	}
	for _, r := range v.Results {
		var check, sev, what string
		switch {
		case r.Status == gate.Regression:
			check, what = "benchgate/"+cqKind(r.Kind), "regressed"
			switch {
			case r.Accepted != nil:
				sev, what = "info", "regressed (accepted on purpose)"
			case !r.Gated:
				sev, what = "minor", "regressed (reported, not gated)"
			case r.Delta != nil && !math.IsInf(*r.Delta, 0) && *r.Delta >= 1:
				sev = "critical"
			default:
				sev = "major"
			}
		case r.Status == gate.Failed && r.Reason.Code == gate.ReasonFailedHead:
			check, what, sev = "benchgate/failure", "fails on head", "critical"
			if !r.Fails() {
				sev = "minor"
			}
		default:
			continue
		}
		desc := fmt.Sprintf("%s.%s %s %s: %s — %s", r.Package, r.Name, Visible(r.Unit), what, Plain(blockingChange(r)), ReasonText(r))
		issues = append(issues, cqIssue{
			Description: Visible(desc), CheckName: check, Severity: sev,
			Fingerprint: fingerprint(check, r.Package, r.Name, r.Unit),
			Location:    place(r.Package, r.Name),
		})
	}
	for _, f := range v.HeadFailures() {
		if coveredByRow(v.Results, f) {
			continue
		}
		sev := "critical"
		if !v.Policy.FailOnFailure {
			sev = "minor"
		}
		name := strings.TrimPrefix(f.Name, "Benchmark")
		issues = append(issues, cqIssue{
			Description: Visible(fmt.Sprintf("%s.%s fails on head: %s", f.Package, name, firstLine(f.Message, 300))),
			CheckName:   "benchgate/failure", Severity: sev,
			Fingerprint: fingerprint("benchgate/failure", f.Package, name, ""),
			Location:    place(f.Package, name),
		})
	}
	out, err := json.MarshalIndent(issues, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode Code Quality report: %w", err)
	}
	return append(out, '\n'), nil
}

// cqKind is a row's kind in the check's name.
func cqKind(k gate.Kind) string {
	if k == gate.Other {
		return "metric"
	}
	return string(k)
}

// fingerprint identifies a finding across pipelines: the same row and
// check give the same one, whatever the figures.
func fingerprint(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:16])
}

// The Code Quality issue: the fields GitLab reads.
type cqIssue struct {
	Description string     `json:"description"`
	CheckName   string     `json:"check_name"`
	Fingerprint string     `json:"fingerprint"`
	Severity    string     `json:"severity"`
	Location    cqLocation `json:"location"`
}

type cqLocation struct {
	Path  string  `json:"path"`
	Lines cqLines `json:"lines"`
}

type cqLines struct {
	Begin int `json:"begin"`
}
