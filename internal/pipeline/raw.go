package pipeline

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

	"github.com/benchgate/benchgate/internal/benchout"
	"github.com/benchgate/benchgate/internal/gate"
	"github.com/benchgate/benchgate/internal/shard"
	"github.com/benchgate/benchgate/internal/stats"
)

// ConfirmFailuresFile is the confirmation re-run's failures, beside its
// raw files in a kept --out directory (docs/measuring.md, "Raw files").
const ConfirmFailuresFile = "confirm-failures.json"

// SameFile lists the rows (package, name, unit) of the benchmarks a run
// did not measure because their package's test binaries ran
// the same code on both sides (gate.Policy.SameBinary): a JSON array
// beside the raw files.
const SameFile = "same-binary.json"

// ScreenRoundsKey starts the confirmation's raw files: the number of the
// screen's rounds the confirmation planned with (gate.ConfirmRounds). The
// files exist, with this line, whenever the run confirmed, also when no
// row was promising: whoever judges the kept files judges the screen as
// the run did.
const ScreenRoundsKey = "screen-rounds"

// FamilyKey is the second line of a shard's confirmation files: the
// suite's family its rows were judged and confirmed in
// (gate.Policy.Family), so that whoever judges the shard's files, or the
// merge of every shard's, decides them as the shard planned.
const FamilyKey = "family"

// File is one raw file's contents and the name its errors give.
type File struct {
	Name string
	Data []byte
}

// Decode returns f as benchfmt text: a go test -json stream (its first
// non-blank byte is '{') converted by benchout.FromJSON, with lines
// mapping the text's lines to the stream's (stats.Input.Lines); text as
// it is, lines nil.
func decode(f File) (text File, lines []int, err error) {
	if !benchout.IsJSON(f.Data) {
		return f, nil, nil
	}
	data, lines, err := benchout.FromJSON(f.Name, f.Data)
	if err != nil {
		return File{}, nil, err
	}
	return File{Name: f.Name, Data: data}, lines, nil
}

// Raw is what a judgement reads: the screen's raw files and the failures
// of its runs and, when the run confirmed, the re-run's files and
// failures. run, compare and merge judge through Judge.Raw alone, so a
// verdict does not depend on the command that gave it.
type Raw struct {
	Screen   [2]File
	Failures []gate.Failure
	// Same are the rows of the benchmarks not measured for their
	// identical test binaries (SameFile).
	Same []stats.Key
	// Confirmed says the run had a confirmation stage; Screened is the
	// screen's round count it planned with, Family a shard's suite's
	// family (0: the rows judged).
	Confirmed       bool
	Screened        int
	Family          int
	Confirm         [2]File // empty when no row was promising
	ConfirmFailures []gate.Failure
}

func inputs(files [2]File) [2]stats.Input {
	return [2]stats.Input{{Name: files[0].Name, R: bytes.NewReader(files[0].Data)}, {Name: files[1].Name, R: bytes.NewReader(files[1].Data)}}
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
	if !found || strings.TrimSpace(k) != ScreenRoundsKey {
		return 0, false, nil
	}
	n, err = strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 1 {
		return 0, false, fmt.Errorf("%s:1: %s %q: want a positive number of rounds", name, ScreenRoundsKey, strings.TrimSpace(v))
	}
	return n, true, nil
}

// WithConfirm adds the confirmation files to in: their screen-rounds line
// says the run confirmed. Files without the line (benchgate before it
// was written) count the screen's rounds.
func (in *Raw) WithConfirm(files [2]File, failures []gate.Failure) error {
	if files[0].Data == nil && files[1].Data == nil {
		return nil
	}
	var counts [2]int
	for i, f := range files {
		n, ok, err := screenRounds(f.Name, f.Data)
		if err != nil {
			return err
		}
		if !ok {
			n = maxRound(in.Screen[i].Data)
		}
		counts[i] = n
	}
	if counts[0] != counts[1] {
		return fmt.Errorf("%s and %s: screen-rounds %d and %d differ: the two files come from different runs", files[0].Name, files[1].Name, counts[0], counts[1])
	}
	var families [2]int
	for i, f := range files {
		n, err := familyOf(f.Name, f.Data)
		if err != nil {
			return err
		}
		families[i] = n
	}
	if families[0] != families[1] {
		return fmt.Errorf("%s and %s: %s %d and %d differ: the two files come from different runs", files[0].Name, files[1].Name, FamilyKey, families[0], families[1])
	}
	in.Confirmed, in.Screened, in.Family, in.Confirm, in.ConfirmFailures = true, counts[0], families[0], files, failures
	return nil
}

// familyOf reads the family lines of confirmation files (merged shards'
// files hold one a shard): 0 without one; all must agree.
func familyOf(name string, raw []byte) (int, error) {
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		v, ok := strings.CutPrefix(sc.Text(), FamilyKey+":")
		if !ok {
			continue
		}
		m, err := strconv.Atoi(strings.TrimSpace(v))
		switch {
		case err != nil || m < 1:
			return 0, fmt.Errorf("%s:%d: %s %q: want a positive number of time rows", name, line, FamilyKey, strings.TrimSpace(v))
		case n != 0 && m != n:
			return 0, fmt.Errorf("%s:%d: %s %d after %d: the shards were not judged in one suite's family", name, line, FamilyKey, m, n)
		}
		n = m
	}
	return n, nil
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

// ReadKept reads a file of a kept directory through no link, within the
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

// ReadDir reads the raw files of a run's --out directory dir, File
// as the user File the directory.
func ReadDir(dir, shown string) (Raw, error) {
	var in Raw
	var confirm [2]File
	for i, name := range []string{shard.BaseFile, shard.HeadFile, shard.ConfirmBaseFile, shard.ConfirmHeadFile} {
		data, err := readKept(filepath.Join(dir, name))
		if err != nil {
			return in, err
		}
		f := File{filepath.Join(shown, name), data}
		switch {
		case i < 2 && data == nil:
			return in, fmt.Errorf("%s: no such file: not the --out directory of a benchgate run", f.Name)
		case i < 2:
			in.Screen[i] = f
		case data != nil:
			confirm[i-2] = f
		}
	}
	failures, err := readFailures(dir, shown, shard.FailuresFile)
	if err != nil {
		return in, err
	}
	in.Failures = failures
	if in.Same, err = readSame(dir, shown); err != nil {
		return in, err
	}
	cf, err := readFailures(dir, shown, ConfirmFailuresFile)
	if err != nil {
		return in, err
	}
	return in, in.WithConfirm(confirm, cf)
}

// ReadFailures reads and decodes the failures file name of dir.
func readFailures(dir, shown, name string) ([]gate.Failure, error) {
	data, err := readKept(filepath.Join(dir, name))
	if err != nil {
		return nil, err
	}
	return failuresOf(filepath.Join(shown, name), data)
}

// readSame reads and decodes the same-binary rows of dir (SameFile; nil
// when the file is missing).
func readSame(dir, shown string) ([]stats.Key, error) {
	data, err := readKept(filepath.Join(dir, SameFile))
	if err != nil || data == nil {
		return nil, err
	}
	var rows []sameRow
	if err := json.Unmarshal(data, &rows); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(shown, SameFile), err)
	}
	keys := make([]stats.Key, len(rows))
	for i, r := range rows {
		if r.Name == "" || r.Unit == "" {
			return nil, fmt.Errorf("%s: a row without a name or unit", filepath.Join(shown, SameFile))
		}
		keys[i] = stats.Key(r)
	}
	return keys, nil
}

// sameRow is a row of SameFile.
type sameRow struct {
	Package string `json:"package"`
	Name    string `json:"name"`
	Unit    string `json:"unit"`
}
