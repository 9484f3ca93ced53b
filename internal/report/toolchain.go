package report

// maxGoVersion bounds a Go version shown in a report, in runes.
const maxGoVersion = 100

// GoDiffers reports whether base and head were built with different Go
// toolchains: both are known and they are not the same version. The
// comparison then measures the compiler and the runtime too.
func (m Meta) GoDiffers() bool {
	return m.BaseGo != "" && m.HeadGo != "" && m.BaseGo != m.HeadGo
}

// GoWarning is the plain-text warning about different toolchains ("" when
// they do not differ), for the JSON report's warnings and the terminal.
// The versions are used verbatim: callers pass trusted or cleaned ones.
func (m Meta) GoWarning() string { return goWarning(m.BaseGo, m.HeadGo) }

func goWarning(base, head string) string {
	if base == "" || head == "" || base == head {
		return ""
	}
	return "base and head were built with different Go toolchains (base " + truncate(base, maxGoVersion) +
		", head " + truncate(head, maxGoVersion) + "): every change includes the compiler's and the runtime's, " +
		"not only the code's (with GOTOOLCHAIN=auto, the go or toolchain line of go.mod selects the toolchain)"
}

// goVer is a Go version for the report ("unknown" when it is not known).
func goVer(v string) Span {
	if v == "" {
		return txt("unknown")
	}
	return nameSpan(truncate(v, maxGoVersion))
}
