package shard

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/testenv"
	"github.com/google/go-cmp/cmp"
)

// FuzzDecode: any shard.json (an artifact a fork's run wrote) decodes or
// is refused without a panic; a manifest accepted has a format this
// benchgate reads, a shard within MaxShards and no negative count, it
// round-trips through JSON, and checking the coverage of it (twice, as
// two shards claiming the same part) ends in time.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"format":1,"shard":"2/4","all":["p.A","p.B"],"assigned":["p.B"],"complete":true,"rounds":10,"base_sha":"a","head_sha":"b","tool":"benchgate dev"}`))
	f.Add([]byte(`{"format":1,"shard":"1/99999999999","rounds":-1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode("shard.json", data)
		if err != nil {
			return
		}
		if m.Format < 1 || m.Format > Format || m.Shard.Count < 1 || m.Shard.Count > MaxShards || m.Shard.Index < 1 || m.Shard.Index > m.Shard.Count || m.Rounds < 0 || m.Failures < 0 {
			t.Fatalf("accepted %+v", m)
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		again, err := Decode("again.json", b)
		if err != nil {
			t.Fatalf("the manifest re-encoded: %v", err)
		}
		if d := cmp.Diff(m, again); d != "" {
			t.Fatalf("round trip (-decoded +again):\n%s", d)
		}
		testenv.Within(t, 10*time.Second, func() { CheckCoverage([]Manifest{m, m}) })
	})
}
