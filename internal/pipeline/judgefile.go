package pipeline

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/policy"
)

// judgeFileName keeps, beside a run's raw files, the rules it judged with
// (docs/measuring.md, "Raw files").
const judgeFileName = "judge.json"

// judgeRecord is judge.json: the rules a run judged with, kept beside its
// raw files so that `benchgate compare DIR` gives the run's verdict.
type judgeRecord struct {
	// Policy is the policy file in force (its text and where it was
	// read), if any.
	Policy *struct {
		Source string `json:"source"`
		Name   string `json:"name"`
		Text   string `json:"text"`
	} `json:"policy,omitempty"`
	Accepts []acceptRecord `json:"accepts"`
	// Ignored are the benchmarks the policy kept from running.
	Ignored []gate.Bench `json:"ignored"`
}

type acceptRecord struct {
	Pattern string `json:"pattern"`
	By      string `json:"by"`
	Via     string `json:"via"`
}

// writeJudgeFile writes judge.json into the kept directory dir.
func writeJudgeFile(dir string, r *Rules) error {
	rec := judgeRecord{Accepts: []acceptRecord{}, Ignored: []gate.Bench{}}
	if r != nil {
		if r.file != nil {
			rec.Policy = &struct {
				Source string `json:"source"`
				Name   string `json:"name"`
				Text   string `json:"text"`
			}{r.source, r.file.File, string(r.fileData)}
		}
		for _, acc := range r.accepts {
			rec.Accepts = append(rec.Accepts, acceptRecord{acc.Pattern, acc.By, acc.Trailer})
		}
		rec.Ignored = append(rec.Ignored, r.ignored...)
	}
	return WriteJSON(filepath.Join(dir, judgeFileName), rec)
}

// readJudgeFile reads the rules of a judge.json file (path names it in
// errors).
func readJudgeFile(path string, data []byte) (*Rules, error) {
	var rec judgeRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	r := &Rules{ignored: rec.Ignored}
	if rec.Policy != nil {
		p, err := policy.Parse(rec.Policy.Name, []byte(rec.Policy.Text))
		if err != nil {
			return nil, fmt.Errorf("%s: the policy it keeps: %v", path, err)
		}
		r.file, r.source, r.fileData = p, rec.Policy.Source, []byte(rec.Policy.Text)
	}
	for _, ar := range rec.Accepts {
		acc, err := policy.NewAccept(ar.Pattern, ar.By, ar.Via)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		r.accepts = append(r.accepts, acc)
	}
	return r, nil
}
