package config

import (
	"errors"
	"strings"
	"testing"
)

func TestParseBisect(t *testing.T) {
	c, err := Parse([]string{"bisect", "--good", "v1", "--bad", "main", "./x/...", "--count", "8", "--resolution", "1.5%", "--json", "b.json"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Good != "v1" || c.Bad != "main" || c.Count != 8 || c.Resolution != 0.015 || c.MaxCount != 40 || c.JSON != "b.json" || len(c.Packages) != 1 || c.Packages[0] != "./x/..." {
		t.Errorf("bisect: %+v", c)
	}
	if c, err := Parse([]string{"bisect", "--good", "v1", "--measure", "instructions"}); err != nil || c.Measure[0] != LaneInstructions {
		t.Errorf("--measure instructions: %v %v", err, c)
	}
	// --max-count follows a larger --count when not given.
	c, err = Parse([]string{"bisect", "--good", "v1", "--count", "50"})
	if err != nil || c.MaxCount != 50 || c.Bad != "HEAD" {
		t.Errorf("--count 50: %v, max-count %d, bad %q", err, c.MaxCount, c.Bad)
	}
}

func TestParseBisectBad(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bisect"}, "--good is required"},
		{[]string{"bisect", "--good", "a", "--bad", ""}, "--bad must not be empty"},
		{[]string{"bisect", "--good", "a", "--resolution", "0"}, "--resolution must be more than 0%"},
		{[]string{"bisect", "--good", "a", "--resolution", "x"}, "--resolution"},
		{[]string{"bisect", "--good", "a", "--count", "20", "--max-count", "10"}, "--max-count 10 is less than --count 20"},
		{[]string{"bisect", "--good", "a", "--max-count", "0"}, "--max-count"},
		{[]string{"bisect", "--good", "a", "--measure", "cycles"}, "--measure"},
		{[]string{"bisect", "--good", "a", "--max-time", "1m"}, "--max-time does not apply to bisect"},
		{[]string{"bisect", "--good", "a", "--shard", "1/2", "--out", "d"}, "--shard does not apply to bisect"},
	} {
		_, err := Parse(tc.args)
		var ue *UsageError
		if err == nil || !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want one usage line with %q", tc.args, err, tc.want)
		}
	}
}
