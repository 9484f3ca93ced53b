package report

import (
	"encoding/json"
	"github.com/benchgate/benchgate/internal/pipeline"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/gate"
)

func TestGoDiffers(t *testing.T) {
	for _, tc := range []struct {
		base, head string
		want       bool
	}{
		{"go1.26.8", "go1.26.8", false},
		{"go1.26.8", "go1.27.0", true},
		{"go1.26.8", "go1.26.8 X:nodwarf5", true}, // experiments change the compiler too
		{"", "go1.27.0", false},                   // unknown is not a difference
		{"", "", false},
	} {
		m := Meta{Record: pipeline.Record{BaseGo: tc.base, HeadGo: tc.head}}
		if got := m.GoDiffers(); got != tc.want {
			t.Errorf("GoDiffers(%q, %q) = %v, want %v", tc.base, tc.head, got, tc.want)
		}
		if w := m.GoWarning(); (w != "") != tc.want {
			t.Errorf("GoWarning(%q, %q) = %q", tc.base, tc.head, w)
		}
	}
}

func goJSON(t *testing.T, v gate.Verdict, m Meta) (goField map[string]string, warnings []string) {
	t.Helper()
	out, err := JSON(v, m)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Go       map[string]string             `json:"go"`
		Warnings []struct{ Code, Text string } `json:"warnings"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	for _, w := range doc.Warnings {
		warnings = append(warnings, w.Text)
	}
	return doc.Go, warnings
}

func TestGoSameToolchain(t *testing.T) {
	v, m := fixtureVerdict(t)
	m.BaseGo, m.HeadGo = "go1.26.8", "go1.26.8"
	md := Markdown(v, m, Options{})
	if !strings.Contains(md, "\n- Go: `go1.26.8` (both sides)\n") {
		t.Errorf("how the run was made lacks the Go version:\n%s", md)
	}
	if strings.Contains(md, "Different Go toolchains") {
		t.Errorf("warns about different toolchains for one toolchain")
	}
	g, warns := goJSON(t, v, m)
	if g["base"] != "go1.26.8" || g["head"] != "go1.26.8" {
		t.Errorf(`"go" = %v`, g)
	}
	for _, w := range warns {
		if strings.Contains(w, "toolchain") {
			t.Errorf("JSON warning for one toolchain: %q", w)
		}
	}
}

func TestGoUnknown(t *testing.T) {
	v, m := fixtureVerdict(t)
	m.BaseGo, m.HeadGo = "", ""
	if md := Markdown(v, m, Options{}); strings.Contains(md, "Go: ") || strings.Contains(md, "Different Go toolchains") {
		t.Errorf("Go shown although unknown")
	}
	g, _ := goJSON(t, v, m)
	if len(g) != 2 || g["base"] != "" || g["head"] != "" {
		t.Errorf(`"go" = %v, want both keys, empty`, g)
	}
}

// TestGoDifferentToolchains: the warning is at the top, above every
// section, survives cutting to a small size, and comes first in the
// JSON's warnings.
func TestGoDifferentToolchains(t *testing.T) {
	v, m := fixtureVerdict(t)
	m.BaseGo, m.HeadGo = "go1.26.8", "go1.27.0"
	for _, max := range []int{0, 2000} {
		md := Markdown(v, m, Options{MaxChars: max})
		i := strings.Index(md, "> ⚠️ **Different Go toolchains**: base was built with `go1.26.8` and head with `go1.27.0`")
		sections := strings.Index(md, "\n####")
		if sections < 0 {
			sections = len(md) // every section cut
		}
		if i < 0 || i > sections {
			t.Errorf("MaxChars %d: no toolchain warning above the sections:\n%s", max, md)
		}
		if !strings.Contains(md, "\n- Go: base `go1.26.8`, head `go1.27.0`\n") {
			t.Errorf("MaxChars %d: how the run was made lacks both versions", max)
		}
	}
	g, warns := goJSON(t, v, m)
	if g["base"] != "go1.26.8" || g["head"] != "go1.27.0" {
		t.Errorf(`"go" = %v`, g)
	}
	if len(warns) == 0 || !strings.Contains(warns[0], "different Go toolchains (base go1.26.8, head go1.27.0)") {
		t.Errorf("first JSON warning = %q, want the toolchain warning", warns)
	}
	if n := len(warns) - len(v.Warnings); n != 1 {
		t.Errorf("%d warnings added, want 1", n)
	}
}

func TestGoVersionHostile(t *testing.T) {
	v := gate.Verdict{Policy: gate.DefaultPolicy()}
	m := Meta{}
	m.BaseGo, m.HeadGo = "go1.26.8", "go1.27 <img src=x onerror=alert(1)> @octocat "+strings.Repeat("x", 500)
	md := Markdown(v, m, Options{})
	if !strings.Contains(md, "Different Go toolchains") {
		t.Fatalf("no toolchain warning:\n%s", md)
	}
	checkGFM(t, md)
	if strings.Contains(md, strings.Repeat("x", maxGoVersion+1)) {
		t.Errorf("the version is not shortened")
	}
	if txt := Text(v, m, TextOptions{}); !strings.Contains(txt, "head go1.27 <img src=x onerror=alert(1)> @octocat xxx") {
		t.Errorf("text report:\n%s", txt)
	}
}
