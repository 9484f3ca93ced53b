package shard

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in      string
		want    Spec
		wantErr string
	}{
		{"1/1", Spec{1, 1}, ""},
		{"2/4", Spec{2, 4}, ""},
		{"4/4", Spec{4, 4}, ""},
		{" 3/8\n", Spec{3, 8}, ""},
		{"01/02", Spec{1, 2}, ""},
		{"1024/1024", Spec{1024, 1024}, ""},
		{"3/2", Spec{}, `--shard "3/2": shard index must be between 1 and 2`},
		{"0/2", Spec{}, `--shard "0/2": shard index must be between 1 and 2`},
		{"1/0", Spec{}, `--shard "1/0": the number of shards must be at least 1`},
		{"1/1025", Spec{}, `--shard "1/1025": the number of shards must be at most 1024`},
		{"1/99999999999999999999", Spec{}, `--shard "1/99999999999999999999": the number of shards "99999999999999999999" is not a number`},
		{"", Spec{}, `--shard "": want i/n, the shard's number and the number of shards, such as 1/4`},
		{"2", Spec{}, `--shard "2": want i/n, the shard's number and the number of shards, such as 1/4`},
		{"a/4", Spec{}, `--shard "a/4": shard index "a" is not a number`},
		{"-1/4", Spec{}, `--shard "-1/4": shard index "-1" is not a number`},
		{"+1/4", Spec{}, `--shard "+1/4": shard index "+1" is not a number`},
		{"1/4/5", Spec{}, `--shard "1/4/5": the number of shards "4/5" is not a number`},
		{"1 / 4", Spec{}, `--shard "1 / 4": the number of shards " 4" is not a number`},
		{"/4", Spec{}, `--shard "/4": shard index "" is not a number`},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if tt.wantErr != "" {
			var pe *ParseError
			if err == nil || err.Error() != tt.wantErr || !errors.As(err, &pe) {
				t.Errorf("Parse(%q) = %v, %v; want error %s", tt.in, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Parse(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
		if s := got.String(); tt.in == s {
			continue
		} else if back, err := Parse(s); err != nil || back != got {
			t.Errorf("Parse(%q) = %v, %v: does not round-trip", s, back, err)
		}
	}
}

func TestSpecText(t *testing.T) {
	type doc struct {
		Shard Spec `json:"shard"`
	}
	for _, tt := range []struct {
		spec Spec
		json string
	}{
		{Spec{2, 4}, `{"shard":"2/4"}`},
		{Spec{}, `{"shard":""}`},
	} {
		b, err := json.Marshal(doc{tt.spec})
		if err != nil || string(b) != tt.json {
			t.Errorf("Marshal(%v) = %s, %v; want %s", tt.spec, b, err, tt.json)
		}
		var d doc
		if err := json.Unmarshal(b, &d); err != nil || d.Shard != tt.spec {
			t.Errorf("Unmarshal(%s) = %v, %v", b, d.Shard, err)
		}
	}
	var d doc
	err := json.Unmarshal([]byte(`{"shard":"5/4"}`), &d)
	if diff := cmp.Diff(`shard "5/4": shard index must be between 1 and 4`, errString(err)); diff != "" {
		t.Errorf("Unmarshal error (-want +got):\n%s", diff)
	}
	if !(Spec{}).IsZero() || (Spec{1, 1}).IsZero() {
		t.Error("IsZero is wrong")
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
