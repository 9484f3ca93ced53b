package policy

import (
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/testenv"
)

// FuzzParse: any file parses, or is refused with FILE:LINE errors,
// without a panic and in time (the bounds refuse what the YAML parser
// would take long over).
func FuzzParse(f *testing.F) {
	f.Add([]byte("threshold: 5%\nrules:\n  - match: 'codec\\.'\n    threshold: 10%\n"))
	f.Add([]byte("a: &x [*x, *x]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var (
			p   *Policy
			err error
		)
		testenv.Within(t, 10*time.Second, func() { p, err = Parse(".benchgate.yml", data) })
		if err == nil && p == nil {
			t.Fatal("no policy and no error")
		}
		if err != nil {
			if _, ok := err.(ErrorList); !ok {
				t.Fatalf("error %T, want an ErrorList", err)
			}
		}
	})
}
