package report

import (
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/stats"
)

// TestAcceptedWording: an accepted regression names who accepted it when
// GitHub said who, and only how otherwise; never "by (" with nobody.
func TestAcceptedWording(t *testing.T) {
	for _, c := range []struct {
		acc  gate.Acceptance
		want string
	}{
		{gate.Acceptance{Pattern: ".", By: "@maintainer", Via: "label benchgate-accept, added at abc1234"},
			"accepted on purpose by @maintainer (label benchgate-accept, added at abc1234)"},
		{gate.Acceptance{Pattern: ".", By: "@mona, the pull request's author", Via: "Benchgate-Accept: . (commit abc1234)"},
			"accepted on purpose by @mona, the pull request's author (Benchgate-Accept: . (commit abc1234))"},
		{gate.Acceptance{Pattern: ".", Via: "Benchgate-Accept: . (commit abc1234, author unverified)"},
			"accepted on purpose by Benchgate-Accept: . (commit abc1234, author unverified)"},
	} {
		d, p := 0.2, 0.001
		acc := c.acc
		v := gate.Verdict{Pass: true, Results: []gate.Result{{
			Comparison: stats.Comparison{Key: stats.Key{Package: "example.com/lib", Name: "Work", Unit: "sec/op"},
				Base: summary(rep(1e-6, 10)...), Head: summary(rep(1.2e-6, 10)...)},
			Kind: gate.Time, Status: gate.Regression, Delta: &d, P: &p, Accepted: &acc,
		}}}
		if txt := Text(v, Meta{}, TextOptions{}); !strings.Contains(txt, c.want) {
			t.Errorf("text report lacks %q:\n%s", c.want, txt)
		}
	}
}
