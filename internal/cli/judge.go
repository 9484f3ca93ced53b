package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/policy"
	"github.com/benchgate/benchgate/internal/shard"
	"github.com/benchgate/benchgate/internal/stats"
)

// The files a judgement reads beside base.txt and head.txt in a kept --out
// directory (docs/measuring.md, "Raw files"): the re-run's failures, and
// the rules the run judged with.
const (
	confirmFailuresFile = "confirm-failures.json"
	judgeFile           = "judge.json"
)

// screenRoundsKey starts the confirmation's raw files: the number of the
// screen's rounds the confirmation planned with (gate.ConfirmRounds). The
// files exist, with this line, whenever the run confirmed, also when no
// row was promising: whoever judges the kept files judges the screen as
// the run did.
const screenRoundsKey = "screen-rounds"

// named is one raw file's contents and the name its errors give.
type named struct {
	name string
	data []byte
}

// rawInputs are what a judgement reads: the screen's raw files and the
// failures of its runs and, when the run confirmed, the re-run's files and
// failures. run, compare and merge judge through judgeRaw alone, so a
// verdict does not depend on the command that gave it.
type rawInputs struct {
	screen   [2]named
	failures []gate.Failure
	// confirmed says the run had a confirmation stage; screened is the
	// screen's round count it planned with.
	confirmed       bool
	screened        int
	confirm         [2]named // empty when no row was promising
	confirmFailures []gate.Failure
}

// judgeRaw judges raw files: the screen (gate.Judge), and when the run
// confirmed, the screen again knowing that its promising rows got fresh
// rounds (gate.ConfirmRounds), then the promising rows on the screen's and
// the fresh rounds pooled (gate.Confirm).
func (a *app) judgeRaw(in rawInputs, r *rules) (*gate.Verdict, error) {
	var v *gate.Verdict
	if !hasResults(in.screen[0].data) && !hasResults(in.screen[1].data) {
		j := gate.Judge(nil, in.failures, a.policy(r))
		v = &j
	} else {
		var err error
		if v, err = a.verdict(inputs(in.screen), in.failures, r); err != nil {
			return nil, err
		}
	}
	if !in.confirmed {
		return v, nil
	}
	screen := confirmScreen(*v, in.screened)
	if !hasResults(in.confirm[0].data) && !hasResults(in.confirm[1].data) {
		return &screen, nil
	}
	second, err := a.verdict(inputs(in.confirm), in.confirmFailures, r)
	if err != nil {
		return nil, err
	}
	c := gate.Confirm(screen, *second)
	return &c, nil
}

// confirmScreen judges the screen v again knowing that its promising time
// rows get fresh rounds: as many as gate.ConfirmRounds gives for a screen
// of screened rounds (the pooled size decides which test each row gets).
func confirmScreen(v gate.Verdict, screened int) gate.Verdict {
	p := v.Policy
	p.ConfirmRounds = gate.ConfirmRounds(screened, v.Family, p)
	cmps := make([]stats.Comparison, len(v.Results))
	for i, r := range v.Results {
		cmps[i] = r.Comparison
	}
	screen := gate.Judge(cmps, v.Failures, p)
	for _, w := range v.Warnings {
		if w.Code == gate.WarnInput {
			screen.Warnings = append(screen.Warnings, w)
		}
	}
	return screen
}

func inputs(files [2]named) [2]stats.Input {
	return [2]stats.Input{{Name: files[0].name, R: bytes.NewReader(files[0].data)}, {Name: files[1].name, R: bytes.NewReader(files[1].data)}}
}

// hasResults reports whether raw holds a benchmark result line.
func hasResults(raw []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if bytes.HasPrefix(sc.Bytes(), []byte("Benchmark")) {
			return true
		}
	}
	return false
}

// screenRounds reads the screen-rounds line that starts a confirmation
// file; ok is false without one.
func screenRounds(name string, raw []byte) (n int, ok bool, err error) {
	line, _, _ := bytes.Cut(raw, []byte("\n"))
	k, v, found := strings.Cut(string(line), ":")
	if !found || strings.TrimSpace(k) != screenRoundsKey {
		return 0, false, nil
	}
	n, err = strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 1 {
		return 0, false, fmt.Errorf("%s:1: %s %q: want a positive number of rounds", name, screenRoundsKey, strings.TrimSpace(v))
	}
	return n, true, nil
}

// withConfirm adds the confirmation files to in: their screen-rounds line
// says the run confirmed. Files without the line (benchgate before it
// was written) count the screen's rounds.
func (in *rawInputs) withConfirm(files [2]named, failures []gate.Failure) error {
	if files[0].data == nil && files[1].data == nil {
		return nil
	}
	var counts [2]int
	for i, f := range files {
		n, ok, err := screenRounds(f.name, f.data)
		if err != nil {
			return err
		}
		if !ok {
			n = maxRound(in.screen[i].data)
		}
		counts[i] = n
	}
	if counts[0] != counts[1] {
		return fmt.Errorf("%s and %s: screen-rounds %d and %d differ: the two files come from different runs", files[0].name, files[1].name, counts[0], counts[1])
	}
	in.confirmed, in.screened, in.confirm, in.confirmFailures = true, counts[0], files, failures
	return nil
}

// maxRound is the largest "round: N" of a raw file.
func maxRound(raw []byte) int {
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "round:"); ok {
			if r, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
				n = max(n, r)
			}
		}
	}
	return n
}

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

// writeJudgeRecord writes judge.json into the kept directory dir.
func writeJudgeRecord(dir string, r *rules) error {
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
	return writeJSON(filepath.Join(dir, judgeFile), rec)
}

// recordRules reads the rules of judge.json.
func recordRules(path string, data []byte) (*rules, error) {
	var rec judgeRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	r := &rules{ignored: rec.Ignored}
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

// readKept reads a file of a kept directory through no link, within the
// bounds of a shard's files; a missing file is nil.
func readKept(path string) ([]byte, error) {
	limit := int64(shard.MaxRawSize)
	if strings.HasSuffix(path, ".json") {
		limit = shard.MaxJSONSize
	}
	data, err := shard.ReadBounded(path, limit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// failuresOf decodes a failures file (nil: none).
func failuresOf(path string, data []byte) ([]gate.Failure, error) {
	if data == nil {
		return nil, nil
	}
	var fs []gate.Failure
	if err := json.Unmarshal(data, &fs); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return fs, nil
}

// keptInputs reads the raw files of a run's --out directory dir, named
// as the user named the directory.
func keptInputs(dir, shown string) (rawInputs, error) {
	var in rawInputs
	var confirm [2]named
	for i, name := range []string{shard.BaseFile, shard.HeadFile, shard.ConfirmBaseFile, shard.ConfirmHeadFile} {
		data, err := readKept(filepath.Join(dir, name))
		if err != nil {
			return in, err
		}
		f := named{filepath.Join(shown, name), data}
		switch {
		case i < 2 && data == nil:
			return in, fmt.Errorf("%s: no such file: not the --out directory of a benchgate run", f.name)
		case i < 2:
			in.screen[i] = f
		case data != nil:
			confirm[i-2] = f
		}
	}
	failures, err := readFailures(dir, shown, shard.FailuresFile)
	if err != nil {
		return in, err
	}
	in.failures = failures
	cf, err := readFailures(dir, shown, confirmFailuresFile)
	if err != nil {
		return in, err
	}
	return in, in.withConfirm(confirm, cf)
}

// readFailures reads and decodes the failures file name of dir.
func readFailures(dir, shown, name string) ([]gate.Failure, error) {
	data, err := readKept(filepath.Join(dir, name))
	if err != nil {
		return nil, err
	}
	return failuresOf(filepath.Join(shown, name), data)
}
