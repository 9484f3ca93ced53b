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
func (m Meta) GoWarning() string {
	if !m.GoDiffers() {
		return ""
	}
	return "base and head were built with different Go toolchains (base " + truncate(m.BaseGo, maxGoVersion) +
		", head " + truncate(m.HeadGo, maxGoVersion) + "): every change includes the compiler's and the runtime's, " +
		"not only the code's (with GOTOOLCHAIN=auto, the go or toolchain line of go.mod selects the toolchain)"
}

// goPart is the meta line's part naming the toolchains, "" when neither
// is known.
func goPart(m Meta) string {
	switch {
	case m.BaseGo == "" && m.HeadGo == "":
		return ""
	case m.BaseGo == m.HeadGo:
		return "Go: " + goVer(m.BaseGo) + " (both sides)"
	}
	return "Go: base " + goVer(m.BaseGo) + ", head " + goVer(m.HeadGo)
}

func goVer(v string) string {
	if v == "" {
		return "unknown"
	}
	return Escape(truncate(v, maxGoVersion))
}

// goWarningBlock is the prominent warning near the top of the Markdown
// report, "" when the toolchains do not differ.
func goWarningBlock(m Meta) string {
	if !m.GoDiffers() {
		return ""
	}
	return "\n> ⚠️ **Different Go toolchains**: base was built with " + goVer(m.BaseGo) + " and head with " + goVer(m.HeadGo) +
		", so every change below includes the compiler's and the runtime's, not only the code's." +
		" (With GOTOOLCHAIN=auto, the `go` or `toolchain` line of go.mod selects the toolchain.)\n"
}
