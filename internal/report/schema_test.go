package report

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/explain"
)

// schemaTypes maps the objects of docs/json-schema.md to the types that
// encode them.
var schemaTypes = map[string]any{
	"report":                jsonDoc{},
	"run":                   jsonRun{},
	"affected":              jsonAffected{},
	"named":                 jsonNamed{},
	"adaptive":              jsonAdaptive{},
	"decided":               jsonDecided{},
	"instruction lane":      jsonLane{},
	"cancelled":             jsonCancelled{},
	"shard part":            jsonShardPart{},
	"timing":                jsonTiming{},
	"run confirmation":      jsonRunConfirmation{},
	"budget":                jsonBudget{},
	"unseen":                jsonUnseen{},
	"explained":             jsonExplained{},
	"explain problem":       jsonExplainProblem{},
	"policy note":           jsonPolicyNote{},
	"merged shard":          jsonMergedShard{},
	"rev":                   jsonRev{},
	"go":                    jsonGo{},
	"policy":                jsonPolicy{},
	"policy file":           jsonPolicyFile{},
	"acceptance":            jsonAcceptance{},
	"rule":                  jsonRule{},
	"benchmark":             jsonBenchmark{},
	"summary":               jsonSummary{},
	"benchstat":             jsonBenchstat{},
	"paired":                jsonPaired{},
	"confirmation":          jsonConfirmation{},
	"reason":                jsonReason{},
	"range":                 jsonRange{},
	"interval":              jsonInterval{},
	"suspicion":             jsonSuspicion{},
	"failure":               jsonFailure{},
	"scaling":               jsonScaling{},
	"scaling reason":        jsonScalingReason{},
	"warning":               jsonWarning{},
	"bench":                 jsonBench{},
	"calibration":           jsonCalibration{},
	"calibration benchmark": jsonCalibrationBench{},
	"recommendation":        jsonRecommendation{},
	"explanation":           explain.Explanation{},
	"site":                  explain.Site{},
	"frame":                 explain.Frame{},
	"function":              explain.Func{},
}

// TestJSONSchemaDocumented keeps docs/json-schema.md and the JSON types in
// step: each documented object lists exactly its type's fields, in order.
func TestJSONSchemaDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/json-schema.md")
	if err != nil {
		t.Fatal(err)
	}
	field := regexp.MustCompile("^\\| `([a-z_]+)` \\|")
	documented := map[string][]string{}
	section := ""
	for _, line := range strings.Split(string(b), "\n") {
		if name, ok := strings.CutPrefix(line, "### "); ok {
			section = name
			if _, ok := schemaTypes[section]; !ok {
				t.Errorf("docs/json-schema.md documents %q, which no type encodes", section)
			}
			continue
		}
		if m := field.FindStringSubmatch(line); m != nil && section != "" {
			documented[section] = append(documented[section], m[1])
		}
	}
	for name, v := range schemaTypes {
		var fields []string
		typ := reflect.TypeOf(v)
		for i := range typ.NumField() {
			tag, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			fields = append(fields, tag)
		}
		if !slices.Equal(fields, documented[name]) {
			t.Errorf("%s: documented %q, encoded %q", name, documented[name], fields)
		}
	}
}
