package gate

import (
	"math"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/testenv"
)

// FuzzPrintedError: every float64 gets its printed error at once (round 3's
// L1: 5e-324 looped forever): +Inf for a value that is not a normal
// float, else a positive error of at most half the value (a value within 1e-9 of a whole number of its leading digit is that number: 9.9999999998 is "10", ±0.5).
func FuzzPrintedError(f *testing.F) {
	for _, x := range []float64{5e-324, 1e-323, 3e-320, 0x1p-1022, 1391e-9, 2945.61e6, math.MaxFloat64, -1, 0} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		var e float64
		testenv.Within(t, time.Second, func() { e = printedError(x) })
		ax := math.Abs(x)
		switch {
		case ax < smallestNormal || math.IsInf(x, 0) || math.IsNaN(x):
			if !math.IsInf(e, 1) {
				t.Fatalf("printedError(%g) = %g, want +Inf", x, e)
			}
		case !(e > 0) || e > 0.5*(1+1e-8):
			t.Fatalf("printedError(%g) = %g", x, e)
		}
	})
}
