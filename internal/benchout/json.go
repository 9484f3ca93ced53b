package benchout

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// IsJSON reports whether data is a test2json stream (go test -json, also
// gotestsum's --jsonfile): its first non-blank byte is '{'. Text output
// starts with a config line or a result, never with '{'.
func IsJSON(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n\ufeff")
	return len(t) > 0 && t[0] == '{'
}

// event is the part of a test2json event that carries output.
type event struct {
	Action  string
	Package string
	Test    string
	Output  *string
}

// FromJSON turns a test2json stream into the text go test -bench prints,
// which the benchfmt readers read. test2json cuts a benchmark's result
// line over several "output" events (the name, then the figures once the
// benchmark has run) and tags each with its package and, mostly, its test:
// the output of each (Package, Test) stream is joined, and a line is
// written out once its stream completes it, so that config lines ("pkg:")
// stay before the results they apply to. Lines the -json mode adds (the
// bare benchmark name, "=== RUN") are dropped; results that the
// benchmark's own output split are put back together ([Rejoin]).
//
// lines maps the text back to data: lines[i] is the line of data whose
// event completed line i+1 of text, for errors that name file:line. name
// is used in FromJSON's own errors ("head.json:7: ...").
//
// The work is linear in data: each event's output is scanned once, and a
// stream's unfinished line is kept until an event completes it, up to
// MaxPendingLine bytes (a longer line is an error naming the event's
// line: no result line comes near it, and the benchfmt reader refuses
// lines a sixteenth as long).
func FromJSON(name string, data []byte) (text []byte, lines []int, err error) {
	type stream struct{ pkg, test string }
	pending := map[stream]*[]byte{}
	last := map[stream]int{}
	var order []stream
	var out strings.Builder
	emit := func(line string, at int) {
		if dropped(line) {
			return
		}
		out.WriteString(line)
		out.WriteByte('\n')
		lines = append(lines, at)
	}
	n := 0
	for raw := range bytes.SplitSeq(data, []byte("\n")) {
		n++
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			continue
		}
		var ev event
		if err := json.Unmarshal(raw, &ev); err != nil {
			return nil, nil, fmt.Errorf("%s:%d: not a go test -json event: %v", name, n, jsonErr(err))
		}
		if ev.Action == "" {
			return nil, nil, fmt.Errorf("%s:%d: not a go test -json event: no Action", name, n)
		}
		if ev.Action != "output" || ev.Output == nil {
			continue
		}
		s := stream{ev.Package, ev.Test}
		b := pending[s]
		if b == nil {
			b = new([]byte)
			pending[s] = b
			order = append(order, s)
		}
		last[s] = n
		// Only the new output is scanned: the stream's pending text has
		// no newline.
		rest := *ev.Output
		for {
			i := strings.IndexByte(rest, '\n')
			if i < 0 {
				break
			}
			line := rest[:i]
			if len(*b) > 0 {
				line = string(append(*b, line...))
				*b = (*b)[:0]
			}
			emit(strings.TrimSuffix(line, "\r"), n)
			rest = rest[i+1:]
		}
		*b = append(*b, rest...)
		if len(*b) > MaxPendingLine {
			return nil, nil, fmt.Errorf("%s:%d: an output line of package %s longer than %d bytes: no benchmark result is that long", name, n, orNone(s.pkg), MaxPendingLine)
		}
	}
	for _, s := range order {
		if rest := *pending[s]; len(rest) > 0 {
			emit(strings.TrimSuffix(string(rest), "\r"), last[s])
		}
	}
	// Rejoin keeps the number of lines: a result put back together takes
	// the line of its figures.
	return Rejoin([]byte(out.String())), lines, nil
}

// MaxPendingLine is the longest line FromJSON puts together from a
// stream's output events: 1 MiB.
const MaxPendingLine = 1 << 20

func orNone(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

// dropped reports the lines that go test's -json mode adds to benchmark
// output: "=== RUN   BenchmarkX", "=== PAUSE", "--- PASS: …" and the bare
// benchmark name (test -v prints it before running the benchmark).
func dropped(line string) bool {
	if strings.HasPrefix(line, "=== ") {
		return true
	}
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, "Benchmark") && !strings.ContainsAny(t, " \t")
}

// jsonErr shortens encoding/json's messages.
func jsonErr(err error) string {
	return strings.TrimPrefix(err.Error(), "json: ")
}
