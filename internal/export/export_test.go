package export

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// validateSchema checks v (decoded JSON) against the subset of JSON Schema
// that Bencher's published BMF schema uses: type, properties,
// patternProperties, required.
func validateSchema(schema map[string]any, v any, path string) error {
	if typ, ok := schema["type"].(string); ok {
		good := false
		switch typ {
		case "object":
			_, good = v.(map[string]any)
		case "number":
			_, good = v.(float64)
		case "string":
			_, good = v.(string)
		case "array":
			_, good = v.([]any)
		default:
			return fmt.Errorf("%s: schema type %q not supported by this validator", path, typ)
		}
		if !good {
			return fmt.Errorf("%s: want %s, got %T", path, typ, v)
		}
	}
	obj, isObj := v.(map[string]any)
	if !isObj {
		return nil
	}
	if req, ok := schema["required"].([]any); ok {
		for _, r := range req {
			if _, ok := obj[r.(string)]; !ok {
				return fmt.Errorf("%s: required %q missing", path, r)
			}
		}
	}
	props, _ := schema["properties"].(map[string]any)
	pats, _ := schema["patternProperties"].(map[string]any)
	for k, val := range obj {
		if sub, ok := props[k].(map[string]any); ok {
			if err := validateSchema(sub, val, path+"."+k); err != nil {
				return err
			}
		}
		for pat, sub := range pats {
			if regexp.MustCompile(pat).MatchString(k) {
				if err := validateSchema(sub.(map[string]any), val, path+"."+k); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func validateBMF(t *testing.T, data []byte) error {
	t.Helper()
	var schema map[string]any
	if err := json.Unmarshal(read(t, "bencher-schema.json"), &schema); err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	return validateSchema(schema, v, "$")
}

// validateGAB checks github-action-benchmark's custom format the way the
// action reads it (zod in src/extract.ts): an array of objects with name,
// unit and value; name, unit, range and extra coerce to strings (strings or
// numbers), value to a number. With strict set, range and extra must be
// strings and value a JSON number, as the README documents them.
func validateGAB(data []byte, strict bool) error {
	var entries []map[string]any
	if err := json.Unmarshal(data, &entries); err != nil {
		return fmt.Errorf("not an array of objects: %v", err)
	}
	for i, e := range entries {
		for _, k := range []string{"name", "unit", "value"} {
			if _, ok := e[k]; !ok {
				return fmt.Errorf("entry %d: %s missing", i, k)
			}
		}
		for _, k := range []string{"name", "unit", "range", "extra"} {
			val, ok := e[k]
			if !ok {
				continue
			}
			switch val.(type) {
			case string:
			case float64:
				if strict && (k == "range" || k == "extra") {
					return fmt.Errorf("entry %d: %s is a number, the README documents a string", i, k)
				}
			default:
				return fmt.Errorf("entry %d: %s is %T", i, k, val)
			}
		}
		switch v := e["value"].(type) {
		case float64:
		case string:
			if _, err := strconv.ParseFloat(v, 64); strict || err != nil {
				return fmt.Errorf("entry %d: value %q is not a number", i, v)
			}
		default:
			return fmt.Errorf("entry %d: value is %T", i, v)
		}
		for k := range e {
			switch k {
			case "name", "unit", "value", "range", "extra":
			default:
				if strict {
					return fmt.Errorf("entry %d: unknown key %q", i, k)
				}
			}
		}
	}
	return nil
}

// The validators accept the documented examples and reject what the
// documentation forbids, so that checking benchgate's output with them
// means something.
func TestValidatorsOnDocumentedExamples(t *testing.T) {
	if err := validateBMF(t, read(t, "bencher-doc-example.json")); err != nil {
		t.Errorf("documented BMF example rejected: %v", err)
	}
	for _, bad := range []string{
		`{"b": {"latency": {"lower_value": 1}}}`,
		`{"b": {"latency": {"value": "88"}}}`,
		`{"b": {"latency": 88}}`,
		`{"b": 1}`,
		`[]`,
	} {
		if validateBMF(t, []byte(bad)) == nil {
			t.Errorf("BMF validator accepts %s", bad)
		}
	}
	if err := validateGAB(read(t, "gab-doc-example.json"), true); err != nil {
		t.Errorf("documented gab example rejected: %v", err)
	}
	if err := validateGAB(read(t, "gab-numeric-range.json"), false); err != nil {
		t.Errorf("the action's own test data rejected: %v", err)
	}
	if validateGAB(read(t, "gab-numeric-range.json"), true) == nil {
		t.Errorf("strict gab validator accepts a numeric range")
	}
	for _, bad := range []string{
		`[{"name": "x", "value": 1}]`,
		`[{"name": "x", "unit": "ns", "value": "fast"}]`,
		`[{"name": "x", "unit": "ns", "value": 1, "range": [1]}]`,
		`{"name": "x", "unit": "ns", "value": 1}`,
	} {
		if validateGAB([]byte(bad), false) == nil {
			t.Errorf("gab validator accepts %s", bad)
		}
	}
}

// goldenMetrics covers: sec/op converted to ns, allocs and bytes, the
// instruction lane (no suffix), a benchmark at two GOMAXPROCS values (the
// suffixes kept), one without interval, no package, custom metrics of
// both directions (B/s higher is better, bytes-out/op lower).
var goldenMetrics = []Metric{
	{Package: "example.com/m/codec", Name: "Encode/size=1k-8", Unit: "sec/op", Value: 1.234e-6, Low: 1.2e-6, High: 1.3e-6, HasInterval: true, Confidence: 0.95, Samples: 10},
	{Package: "example.com/m/codec", Name: "Encode/size=1k-8", Unit: "allocs/op", Value: 3, Low: 3, High: 3, HasInterval: true, Confidence: 0.95, Samples: 10},
	{Package: "example.com/m/codec", Name: "Encode/size=1k-8", Unit: "B/op", Value: 2040, Low: 2040, High: 2048, HasInterval: true, Confidence: 0.95, Samples: 10},
	{Package: "example.com/m/codec", Name: "Encode/size=1k-8", Unit: "B/s", Value: 8.3e8, Higher: true},
	{Package: "example.com/m/codec", Name: "Encode/size=1k-8", Unit: "bytes-out/op", Value: 4608, Samples: 10, Low: 4608, High: 4608, HasInterval: true, Confidence: 0.95},
	{Package: "example.com/m/codec", Name: "Encode/size=1k", Unit: "instructions/op", Value: 10500, Low: 10490, High: 10512, HasInterval: true, Samples: 3},
	{Package: "example.com/m/parse", Name: "BenchmarkParse-4", Unit: "sec/op", Value: 5e-8, Samples: 4},
	{Package: "example.com/m/parse", Name: "Parse", Unit: "sec/op", Value: 4.5e-8, Low: 4.4e-8, High: 4.7e-8, HasInterval: true, Confidence: 0.95, Samples: 10},
	{Name: "Plain-2", Unit: "ns/op", Value: 88, Low: 87.42, High: 88.88, HasInterval: true, Machine: "AMD EPYC 7B13, 2 cores, linux/amd64 v1"},
}

func TestGolden(t *testing.T) {
	for _, c := range []struct {
		f    Format
		file string
	}{{Bencher, "bencher.golden.json"}, {GAB, "gab.golden.json"}, {GABBigger, "gab-bigger.golden.json"}} {
		got, err := Encode(c.f, goldenMetrics)
		if err != nil {
			t.Fatal(err)
		}
		if *update {
			if err := os.WriteFile("testdata/"+c.file, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if want := read(t, c.file); !bytes.Equal(got, want) {
			t.Errorf("%s:\n%s\nwant (testdata/%s):\n%s", c.f, got, c.file, want)
		}
	}
}

func TestBencherOutput(t *testing.T) {
	out, err := EncodeBencher(goldenMetrics)
	if err != nil {
		t.Fatal(err)
	}
	if err := validateBMF(t, out); err != nil {
		t.Fatalf("output is not BMF: %v\n%s", err, out)
	}
	var doc map[string]map[string]map[string]float64
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	enc := doc["example.com/m/codec.Encode/size=1k"]
	if want := map[string]float64{"value": 1234, "lower_value": 1200, "upper_value": 1300}; fmt.Sprint(enc["latency"]) != fmt.Sprint(want) {
		t.Errorf("latency = %v, want %v (ns)", enc["latency"], want)
	}
	if enc["allocations"]["value"] != 3 || enc["bytes"]["upper_value"] != 2048 || enc["instructions"]["value"] != 10500 {
		t.Errorf("Encode measures = %v", enc)
	}
	// Custom metrics: a measure each, named by the unit.
	if enc["B/s"]["value"] != 8.3e8 || enc["bytes-out/op"]["value"] != 4608 {
		t.Errorf("custom measures = %v", enc)
	}
	if len(enc) != 6 {
		t.Errorf("Encode has %d measures, want latency, allocations, bytes, instructions, B/s, bytes-out/op: %v", len(enc), enc)
	}
	// Parse at GOMAXPROCS 4 and 1: both keep their names apart.
	if doc["example.com/m/parse.Parse-4"]["latency"]["value"] != 50 || doc["example.com/m/parse.Parse"]["latency"]["value"] != 45 {
		t.Errorf("parse: %v", doc)
	}
	if _, ok := doc["example.com/m/parse.Parse-4"]["latency"]["lower_value"]; ok {
		t.Errorf("a value without interval got bounds")
	}
	if doc["Plain"]["latency"]["value"] != 88 {
		t.Errorf("no package: %v", doc["Plain"])
	}
}

func TestGABOutput(t *testing.T) {
	out, err := EncodeGAB(goldenMetrics)
	if err != nil {
		t.Fatal(err)
	}
	if err := validateGAB(out, true); err != nil {
		t.Fatalf("output is not gab custom JSON: %v\n%s", err, out)
	}
	var entries []gabEntry
	if err := json.Unmarshal(out, &entries); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name+" ["+e.Unit+"]")
	}
	want := []string{
		"example.com/m/codec.Encode/size=1k [ns/op]",
		"example.com/m/codec.Encode/size=1k - allocs/op [allocs/op]",
		"example.com/m/codec.Encode/size=1k - B/op [B/op]",
		"example.com/m/codec.Encode/size=1k - bytes-out/op [bytes-out/op]",
		"example.com/m/codec.Encode/size=1k - instructions/op [instructions/op]",
		"example.com/m/parse.Parse-4 [ns/op]",
		"example.com/m/parse.Parse [ns/op]",
		"Plain [ns/op]",
	}
	if strings.Join(names, "\n") != strings.Join(want, "\n") {
		t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}
	e := entries[0]
	if e.Value != 1234 || e.Range != "± 66" || e.Extra != "95% interval 1200–1300 ns/op\n10 samples\nGOMAXPROCS 8" {
		t.Errorf("Encode time entry = %+v", e)
	}
	if entries[5].Range != "" || entries[5].Extra != "4 samples\nGOMAXPROCS 4" {
		t.Errorf("Parse-4 entry = %+v", entries[5])
	}
}

// Higher-is-better metrics go to the customBiggerIsBetter file, and only
// they: the action takes one direction per file.
func TestGABBiggerOutput(t *testing.T) {
	out, err := EncodeGABBigger(goldenMetrics)
	if err != nil {
		t.Fatal(err)
	}
	if err := validateGAB(out, true); err != nil {
		t.Fatalf("output is not gab custom JSON: %v\n%s", err, out)
	}
	var entries []gabEntry
	if err := json.Unmarshal(out, &entries); err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name != "example.com/m/codec.Encode/size=1k - B/s" || entries[0].Unit != "B/s" || entries[0].Value != 8.3e8 {
		t.Errorf("entries = %+v, want the B/s one alone", entries)
	}
	if out, err := EncodeGABBigger(goldenMetrics[:1]); err != nil || string(out) != "[]\n" {
		t.Errorf("no higher-is-better metric: %q, %v", out, err)
	}
}

func TestEmptyAndErrors(t *testing.T) {
	if out, err := EncodeBencher(nil); err != nil || string(out) != "{}\n" {
		t.Errorf("EncodeBencher(nil) = %q, %v", out, err)
	}
	if out, err := EncodeGAB(nil); err != nil || string(out) != "[]\n" {
		t.Errorf("EncodeGAB(nil) = %q, %v", out, err)
	}
	nan := []Metric{{Package: "p", Name: "X-8", Unit: "sec/op", Value: math.NaN()}}
	for _, f := range Formats {
		if _, err := Encode(f, nan); err == nil || err.Error() != "export: p.X-8 sec/op: value NaN is not a finite number" {
			t.Errorf("%s with NaN: err = %v", f, err)
		}
	}
	// An interval that does not contain the value, or is not finite, is
	// left out rather than exported wrong.
	odd := []Metric{
		{Package: "p", Name: "A", Unit: "ns/op", Value: 10, Low: 11, High: 12, HasInterval: true},
		{Package: "p", Name: "B", Unit: "ns/op", Value: 10, Low: math.Inf(-1), High: 12, HasInterval: true},
	}
	out, err := EncodeBencher(odd)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "lower_value") {
		t.Errorf("bad intervals exported: %s", out)
	}
	dup := []Metric{{Package: "p", Name: "A-8", Unit: "ns/op", Value: 1}, {Package: "p", Name: "A-8", Unit: "sec/op", Value: 1e-9}}
	if _, err := EncodeBencher(dup); err == nil || err.Error() != "export: p.A: two latency values" {
		t.Errorf("duplicate: err = %v", err)
	}
	if _, err := EncodeGAB(dup); err == nil || err.Error() != `export: two values named "p.A"` {
		t.Errorf("duplicate gab: err = %v", err)
	}
}

func TestParseTarget(t *testing.T) {
	for in, want := range map[string]Target{
		"bencher=out/bmf.json": {Bencher, "out/bmf.json"},
		"gab=a=b.json":         {GAB, "a=b.json"},
		"gab-bigger=big.json":  {GABBigger, "big.json"},
	} {
		got, err := ParseTarget(in)
		if err != nil || got != want {
			t.Errorf("ParseTarget(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"bencher":        `--export "bencher": want FORMAT=FILE, FORMAT bencher, gab or gab-bigger`,
		"bencher=":       `--export "bencher=": want FORMAT=FILE, FORMAT bencher, gab or gab-bigger`,
		"csv=out.csv":    `--export "csv=out.csv": unknown format "csv": want bencher, gab or gab-bigger`,
		"Bencher=x.json": `--export "Bencher=x.json": unknown format "Bencher": want bencher, gab or gab-bigger`,
	} {
		if _, err := ParseTarget(in); err == nil || err.Error() != want {
			t.Errorf("ParseTarget(%q) err = %v, want %s", in, err, want)
		}
	}
}
