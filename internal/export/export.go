// Package export writes head's benchmark results in the formats of history
// services, so that benchgate feeds them rather than storing history
// itself: --export bencher=FILE (Bencher Metric Format), --export gab=FILE
// (github-action-benchmark's customSmallerIsBetter: every lower-is-better
// unit) and --export gab-bigger=FILE (its customBiggerIsBetter: the
// higher-is-better custom metrics, B/s and other rates).
//
// The input is a list of [Metric]s, one per (benchmark, unit): head's
// center value, its interval and its sample count. The CLI fills it from
// the verdict; this package knows nothing of statistics. The names, units
// and fields written are described in docs/exports.md.
package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/internal/policy"
)

// Metric is one unit of one benchmark on head.
type Metric struct {
	// Package is the import path ("" if unknown).
	Package string
	// Name is the benchmark's benchfmt name, with sub-benchmark parts and
	// -GOMAXPROCS suffix ("Encode/size=1k-8"); a "Benchmark" prefix is
	// dropped.
	Name string
	// Unit is the unit as benchfmt tidies it: "sec/op" (Value in seconds) or
	// "ns/op", "allocs/op", "B/op", "instructions/op", or a custom metric's
	// ("B/s", "items/s", "bytes-out/op").
	Unit string
	// Higher says that higher values of a custom metric are better (its
	// direction, as the gate judged it); the built-in units are
	// lower-is-better whatever it says.
	Higher bool
	// Value is head's center (the median of its samples).
	Value float64
	// Low and High bound head's confidence interval of the center, in Unit;
	// used only when HasInterval is set and Low ≤ Value ≤ High, both finite.
	Low, High   float64
	HasInterval bool
	// Confidence is the interval's level (0.95), for the text of gab's
	// extra; 0 if unknown.
	Confidence float64
	// Samples is the number of head's samples; 0 if unknown.
	Samples int
	// Machine describes the computer measured (machine.Info.String);
	// "" if unknown. gab's extra names it; BMF has no place for it (give
	// bencher run a --testbed per machine, docs/exports.md).
	Machine string
}

// Format is an export format.
type Format string

const (
	// Bencher is the Bencher Metric Format (BMF) JSON.
	Bencher Format = "bencher"
	// GAB is github-action-benchmark's customSmallerIsBetter JSON: the
	// lower-is-better units.
	GAB Format = "gab"
	// GABBigger is github-action-benchmark's customBiggerIsBetter JSON:
	// the higher-is-better custom metrics (the action takes one direction
	// per file, its tool).
	GABBigger Format = "gab-bigger"
)

// Formats lists the formats, for messages.
var Formats = []Format{Bencher, GAB, GABBigger}

// Target is one --export value: a format and the file to write.
type Target struct {
	Format Format
	Path   string
}

// ParseTarget reads a --export value, FORMAT=FILE ("bencher=bmf.json").
func ParseTarget(s string) (Target, error) {
	f, path, ok := strings.Cut(s, "=")
	f = strings.TrimSpace(f)
	if !ok || path == "" {
		return Target{}, fmt.Errorf("--export %q: want FORMAT=FILE, FORMAT bencher, gab or gab-bigger", s)
	}
	for _, known := range Formats {
		if Format(f) == known {
			return Target{Format: known, Path: path}, nil
		}
	}
	return Target{}, fmt.Errorf("--export %q: unknown format %q: want bencher, gab or gab-bigger", s, f)
}

// Encode renders metrics in format f.
func Encode(f Format, metrics []Metric) ([]byte, error) {
	switch f {
	case Bencher:
		return EncodeBencher(metrics)
	case GAB:
		return EncodeGAB(metrics)
	case GABBigger:
		return EncodeGABBigger(metrics)
	}
	return nil, fmt.Errorf("unknown export format %q", f)
}

// kind is an exported unit: its Bencher measure, its gab unit, and the
// factor from the input unit to it.
type kind struct {
	measure, unit string
	scale         float64
	// suffix: gab names this unit's entry "NAME - UNIT" (all but time).
	suffix bool
	// higher: higher values are better (a custom metric's direction).
	higher bool
}

func kindOf(m Metric) kind {
	switch m.Unit {
	case "sec/op":
		return kind{"latency", "ns/op", 1e9, false, false}
	case "ns/op":
		return kind{"latency", "ns/op", 1, false, false}
	case "allocs/op":
		return kind{"allocations", "allocs/op", 1, true, false}
	case "B/op":
		return kind{"bytes", "B/op", 1, true, false}
	case "instructions/op":
		return kind{"instructions", "instructions/op", 1, true, false}
	}
	// A custom metric: its own measure, named by its unit.
	return kind{m.Unit, m.Unit, 1, true, m.Higher}
}

// point is one exported value, converted and named.
type point struct {
	name, procs string
	kind        kind
	value       float64
	low, high   float64
	interval    bool
	confidence  float64
	samples     int
	machine     string
}

// round keeps 12 significant digits, so that unit conversion leaves no
// binary noise (1.234e-6 s is 1234 ns, not 1234.0000000000002).
func round(v float64) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	if err != nil {
		return v
	}
	return r
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// points converts and names the metrics, in input order. A non-finite
// value is an error.
func points(metrics []Metric) ([]point, error) {
	// A name keeps its suffix when the same benchmark and measure appear
	// at several GOMAXPROCS values.
	type group struct{ pkg, base, measure string }
	fulls := map[group]map[string]bool{}
	for _, m := range metrics {
		k := kindOf(m)
		name := strings.TrimPrefix(m.Name, "Benchmark")
		g := group{m.Package, policy.StripProcs(name), k.measure}
		if fulls[g] == nil {
			fulls[g] = map[string]bool{}
		}
		fulls[g][name] = true
	}
	var out []point
	for _, m := range metrics {
		k := kindOf(m)
		name := strings.TrimPrefix(m.Name, "Benchmark")
		base := policy.StripProcs(name)
		if !finite(m.Value) {
			return nil, fmt.Errorf("export: %s %s: value %v is not a finite number", key(m.Package, name), m.Unit, m.Value)
		}
		p := point{kind: k, value: round(m.Value * k.scale), confidence: m.Confidence, samples: m.Samples, machine: m.Machine}
		if base != name {
			p.procs = name[len(base)+1:]
		}
		if len(fulls[group{m.Package, base, k.measure}]) > 1 {
			p.name = key(m.Package, name)
		} else {
			p.name = key(m.Package, base)
		}
		if m.HasInterval && finite(m.Low) && finite(m.High) && m.Low <= m.Value && m.Value <= m.High {
			p.interval, p.low, p.high = true, round(m.Low*k.scale), round(m.High*k.scale)
		}
		out = append(out, p)
	}
	return out, nil
}

func key(pkg, name string) string {
	if pkg == "" {
		return name
	}
	return pkg + "." + name
}

// bmfMetric is one measure's values in BMF.
type bmfMetric struct {
	Value      float64  `json:"value"`
	LowerValue *float64 `json:"lower_value,omitempty"`
	UpperValue *float64 `json:"upper_value,omitempty"`
}

// EncodeBencher renders the metrics as Bencher Metric Format JSON (see the
// package documentation). Two metrics with the same name and measure are an
// error.
func EncodeBencher(metrics []Metric) ([]byte, error) {
	ps, err := points(metrics)
	if err != nil {
		return nil, err
	}
	doc := map[string]map[string]bmfMetric{}
	for _, p := range ps {
		if doc[p.name] == nil {
			doc[p.name] = map[string]bmfMetric{}
		}
		if _, dup := doc[p.name][p.kind.measure]; dup {
			return nil, fmt.Errorf("export: %s: two %s values", p.name, p.kind.measure)
		}
		m := bmfMetric{Value: p.value}
		if p.interval {
			lo, hi := p.low, p.high
			m.LowerValue, m.UpperValue = &lo, &hi
		}
		doc[p.name][p.kind.measure] = m
	}
	return marshal(doc)
}

// gabEntry is one entry of github-action-benchmark's custom JSON.
type gabEntry struct {
	Name  string  `json:"name"`
	Unit  string  `json:"unit"`
	Value float64 `json:"value"`
	Range string  `json:"range,omitempty"`
	Extra string  `json:"extra,omitempty"`
}

// EncodeGAB renders the lower-is-better metrics as github-action-benchmark's
// customSmallerIsBetter JSON (see the package documentation), in input
// order. Two entries with the same name are an error.
func EncodeGAB(metrics []Metric) ([]byte, error) { return encodeGAB(metrics, false) }

// EncodeGABBigger renders the higher-is-better metrics as
// github-action-benchmark's customBiggerIsBetter JSON, as EncodeGAB does
// the others.
func EncodeGABBigger(metrics []Metric) ([]byte, error) { return encodeGAB(metrics, true) }

func encodeGAB(metrics []Metric, higher bool) ([]byte, error) {
	ps, err := points(metrics)
	if err != nil {
		return nil, err
	}
	entries := []gabEntry{}
	seen := map[string]bool{}
	for _, p := range ps {
		if p.kind.higher != higher {
			continue
		}
		e := gabEntry{Name: p.name, Unit: p.kind.unit, Value: p.value}
		if p.kind.suffix {
			e.Name += " - " + p.kind.unit
		}
		if seen[e.Name] {
			return nil, fmt.Errorf("export: two values named %q", e.Name)
		}
		seen[e.Name] = true
		var extra []string
		if p.interval {
			e.Range = "± " + num(max(p.value-p.low, p.high-p.value))
			level := "interval"
			if p.confidence > 0 && p.confidence < 1 {
				level = strconv.FormatFloat(p.confidence*100, 'f', -1, 64) + "% interval"
			}
			extra = append(extra, fmt.Sprintf("%s %s–%s %s", level, exact(p.low), exact(p.high), p.kind.unit))
		}
		if p.samples > 0 {
			extra = append(extra, fmt.Sprintf("%d samples", p.samples))
		}
		if p.procs != "" {
			extra = append(extra, "GOMAXPROCS "+p.procs)
		}
		if p.machine != "" {
			extra = append(extra, "machine: "+p.machine)
		}
		e.Extra = strings.Join(extra, "\n")
		entries = append(entries, e)
	}
	return marshal(entries)
}

// num formats a number with 4 significant digits, without an exponent
// (12.35, 1235000, 0.0001235).
func num(v float64) string {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 4, 64), 64)
	if err != nil {
		r = v
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// exact formats a number without an exponent.
func exact(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}

func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
