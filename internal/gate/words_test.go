package gate

// The gate returns facts; package report puts them in words. Tests here
// check some facts through their words, which also checks the words:
// report's functions are wired in by hooks_test.go (package gate_test),
// since package gate cannot import report.
var (
	reasonHook   func(Result) string
	warningsHook func(Verdict) []string
	warningHook  func(Warning) string
	scalingHook  func(Scaling) string

	suspicionHook func(Suspicion, string) string
)

// reasonText is r's reason in words.
func reasonText(r Result) string { return reasonHook(r) }

// warningTexts are v's warnings in words.
func warningTexts(v Verdict) []string { return warningsHook(v) }

// inconclusiveText joins the words of v's cannot-judge warnings.
func inconclusiveText(v Verdict) string {
	s := ""
	for _, w := range v.Warnings {
		if w.Code == WarnCannotJudge {
			if s != "" {
				s += "; "
			}
			s += warningHook(w)
		}
	}
	return s
}

// adviceText is CountAdvice in words, "" when there is none.
func adviceText(count, m int, p Policy) string {
	w, ok := CountAdvice(count, m, p)
	if !ok {
		return ""
	}
	return warningHook(w)
}

// decisionText is a sequential decision's reason in words.
func decisionText(d Decision) string {
	r := Result{Reason: d.Reason}
	r.Unit = "sec/op"
	return reasonHook(r)
}

// scalingText is a scaling's reason in words.
func scalingText(s Scaling) string { return scalingHook(s) }
