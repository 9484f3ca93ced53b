package runner

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// experimentLayout reads BENCHGATE_LAYOUT ("procs=2,span=250ms"), for the
// side-by-side comparison of layouts only. TEMPORARY.
func experimentLayout(o *Options) {
	for _, kv := range strings.Split(os.Getenv("BENCHGATE_LAYOUT"), ",") {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "procs":
			o.procs, _ = strconv.Atoi(v)
		case "span":
			o.span, _ = time.ParseDuration(v)
		}
	}
	o.procs = max(1, o.procs)
}
