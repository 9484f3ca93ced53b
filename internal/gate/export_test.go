package gate

// SetWordHooks wires package report's words into the tests (see
// words_test.go).
func SetWordHooks(reason func(Result) string, warnings func(Verdict) []string, warning func(Warning) string, scaling func(Scaling) string,
	suspicion func(Suspicion, string) string) {
	reasonHook, warningsHook, warningHook, scalingHook, suspicionHook = reason, warnings, warning, scaling, suspicion
}
