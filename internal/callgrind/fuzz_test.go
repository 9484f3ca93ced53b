package callgrind

import (
	"bytes"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/testenv"
)

// FuzzParse: any profile (callgrind writes them where the benchmark's own
// code runs) parses or is refused without a panic, in time, into memory
// proportional to its size, and its functions sort and merge.
func FuzzParse(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte("events: Ir Dr\nfn=(1) a\n1 2 3\ncfn=(1)\ncalls=1 1\n* 5 5\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var (
			p   *Profile
			err error
		)
		testenv.Within(t, 10*time.Second, func() {
			p, err = Parse(bytes.NewReader(data))
			if err == nil {
				p.Top(10, true)
				p.Top(0, false)
			}
		})
		if err != nil {
			return
		}
		slots := len(p.Events) + len(p.Totals)
		for _, fn := range p.Funcs {
			slots += len(fn.Self) + len(fn.Inclusive)
		}
		if slots > 4*len(data)+16 {
			t.Fatalf("%d cost slots from %d bytes", slots, len(data))
		}
		q := &Profile{Events: p.Events, Funcs: map[string]*Func{}}
		_ = q.Merge(p)
	})
}
