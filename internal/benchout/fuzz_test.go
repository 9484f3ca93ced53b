package benchout

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/benchgate/benchgate/internal/testenv"
)

// bound is the time one fuzz input may take.
const bound = 10 * time.Second

// FuzzFromJSON: any go test -json stream decodes without a panic, in
// time (round 3's L4: a line cut over many events was quadratic), to text
// no longer than the events' output with one line number per line; and a
// stream made of a text's output cut anywhere decodes to that text's
// lines as -json mode's own lines are dropped and results rejoined.
func FuzzFromJSON(f *testing.F) {
	f.Add([]byte(`{"Action":"output","Package":"p","Output":"BenchmarkX-2 \t"}`+"\n"+`{"Action":"output","Package":"p","Output":"  10\t 100 ns/op\n"}`), uint8(3))
	f.Add([]byte("{\"Action\":\"run\"}\n{not json"), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, cut uint8) {
		var text []byte
		var lines []int
		var err error
		testenv.Within(t, bound, func() { text, lines, err = FromJSON("f.json", data) })
		if err == nil {
			if n := bytes.Count(text, []byte("\n")); n != len(lines) {
				t.Fatalf("%d lines, %d line numbers", n, len(lines))
			}
			if len(text) > len(data)+len(lines) {
				t.Fatalf("text of %d bytes from %d", len(text), len(data))
			}
		}
		// The round trip: data (as valid UTF-8, which JSON strings are)
		// as the output of one test, in events of about cut bytes cut
		// between characters.
		out := strings.ToValidUTF8(string(data), "\uFFFD")
		if len(out) > 4096 {
			out = strings.ToValidUTF8(out[:4096], "")
		}
		step := int(cut)%64 + 1
		var events strings.Builder
		for i := 0; i < len(out); {
			j := min(len(out), i+step)
			for j < len(out) && !utf8.RuneStart(out[j]) {
				j++
			}
			b, _ := json.Marshal(event{Action: "output", Package: "p", Test: "BenchmarkX", Output: ptr(out[i:j])})
			events.Write(append(b, '\n'))
			i = j
		}
		got, _, err := FromJSON("f.json", []byte(events.String()))
		if err != nil {
			t.Fatalf("a stream of output events: %v", err)
		}
		var want []string
		for _, l := range strings.SplitAfter(out, "\n") {
			if l == "" {
				continue
			}
			if l = strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r"); !dropped(l) {
				want = append(want, l+"\n")
			}
		}
		if w := string(Rejoin([]byte(strings.Join(want, "")))); string(got) != w {
			t.Fatalf("round trip:\n got %q\nwant %q", got, w)
		}
	})
}

func ptr(s string) *string { return &s }

// FuzzRejoin: any output rejoins without a panic, keeping its number of
// lines, and rejoining again changes nothing.
func FuzzRejoin(f *testing.F) {
	f.Add([]byte("BenchmarkX-2 \tsome text\nmore\n  1000\t  12.5 ns/op\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var once []byte
		testenv.Within(t, bound, func() { once = Rejoin(data) })
		if a, b := bytes.Count(once, []byte("\n")), bytes.Count(data, []byte("\n")); a != b {
			t.Fatalf("%d lines from %d", a, b)
		}
		if twice := Rejoin(once); !bytes.Equal(twice, once) {
			t.Fatalf("not idempotent:\n%q\n%q", once, twice)
		}
	})
}
