// Package ledger keeps the history of a branch as the paired changes that
// benchgate measured at each of its merges: one JSON line per (package,
// benchmark, unit) and merge, with the change's log ratio, its interval and
// standard error, both commits and the machine. [FromVerdict] turns a
// verdict into entries, [Append] adds them to a ledger file, [Read] reads
// one back, and [Analyze] chains the changes into levels and finds creeps:
// windows of consecutive merges whose summed change passes the threshold.
// The file format and the creep test are described in docs/ledger.md.
package ledger

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"syscall"
	"time"

	"github.com/benchgate/benchgate/internal/machine"
	"github.com/benchgate/benchgate/internal/safefile"
)

// Version is the "v" of the entries this package writes and reads.
const Version = 1

// The directions of a unit.
const (
	Lower  = "lower"  // lower values are better (sec/op, B/op, allocs/op)
	Higher = "higher" // higher values are better (B/s)
)

// Commit is one side of a merge.
type Commit struct {
	SHA     string    `json:"sha"`
	Time    time.Time `json:"time"`
	Subject string    `json:"subject"`
}

// Entry is one (package, benchmark, unit) of one recorded run: the paired
// change from Base to Head.
type Entry struct {
	V        int       `json:"v"`
	Recorded time.Time `json:"recorded"`
	Base     Commit    `json:"base"`
	Head     Commit    `json:"head"`
	Package  string    `json:"package"`
	// Name is the benchmark's name without "Benchmark" and without the
	// -GOMAXPROCS suffix, unless the run had the benchmark at several
	// GOMAXPROCS values (as the exports name it).
	Name string `json:"name"`
	Unit string `json:"unit"`
	// Direction is Lower or Higher.
	Direction string `json:"direction"`
	// Change is head/base − 1 (0.05 = +5 %), as the report's delta;
	// LogRatio is log(head/base), Low and High its interval at
	// Confidence, SE its standard error (what chaining adds up).
	Change     float64 `json:"change"`
	LogRatio   float64 `json:"log_ratio"`
	Low        float64 `json:"low"`
	High       float64 `json:"high"`
	Confidence float64 `json:"confidence"`
	SE         float64 `json:"se"`
	// Test is the test that judged the row: "paired", "utest" or
	// "exact", or "same-binary" for a zero change not measured (the
	// test binaries were byte-identical); N the number of pairs (paired)
	// or the smaller side's samples; P its p-value before any correction
	// (nil for exact rows).
	Test string   `json:"test"`
	N    int      `json:"n"`
	P    *float64 `json:"p,omitempty"`
	// Status is the row's status in the run's verdict.
	Status     string       `json:"status"`
	BaseMedian float64      `json:"base_median"`
	HeadMedian float64      `json:"head_median"`
	Go         string       `json:"go"`
	Machine    machine.Info `json:"machine"`
}

// Validate reports an entry that the analysis cannot use.
func (e Entry) Validate() error {
	switch {
	case e.V != Version:
		return fmt.Errorf("version %d: want %d", e.V, Version)
	case e.Head.SHA == "":
		return errors.New("no head commit")
	case e.Name == "" || e.Unit == "":
		return errors.New("no benchmark name or unit")
	case e.Direction != Lower && e.Direction != Higher:
		return fmt.Errorf("direction %q: want lower or higher", e.Direction)
	case !finite(e.LogRatio) || !finite(e.Low) || !finite(e.High) || !finite(e.SE) || e.SE < 0:
		return errors.New("log_ratio, low, high and se must be finite numbers, se ≥ 0")
	case e.Low > e.LogRatio || e.LogRatio > e.High:
		return fmt.Errorf("interval [%v, %v] does not hold log_ratio %v", e.Low, e.High, e.LogRatio)
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Marshal renders entries as JSON Lines, one entry a line, each valid.
func Marshal(entries []Entry) ([]byte, error) {
	var b bytes.Buffer
	for _, e := range entries {
		if err := e.Validate(); err != nil {
			return nil, fmt.Errorf("ledger entry %s %s: %w", e.Name, e.Unit, err)
		}
		line, err := json.Marshal(e)
		if err != nil {
			return nil, fmt.Errorf("ledger entry %s %s: %w", e.Name, e.Unit, err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

// Read reads a ledger: JSON Lines of entries, blank lines skipped. name
// is used in error messages ("ledger.jsonl:12: ..."). A line of another
// version or that does not parse is an error naming the line.
func Read(r io.Reader, name string) ([]Entry, error) {
	var out []Entry
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var e Entry
		dec := json.NewDecoder(bytes.NewReader(text))
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		if err := e.Validate(); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// ReadFile reads the ledger at path (a regular file; a link is refused).
// A missing file is an error wrapping fs.ErrNotExist.
func ReadFile(path string) ([]Entry, error) {
	f, err := safefile.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path)
}

// Append adds entries to the ledger at path, creating it (mode 0644) if
// missing. The lines are written with one write on a descriptor opened
// with O_APPEND and held under an exclusive lock, so that concurrent
// writers never interleave or lose lines. A symbolic link or anything but
// a regular file at path is refused. A file that does not end in a newline
// (a torn last line) gets one first.
func Append(path string, entries []Entry) error {
	data, err := Marshal(entries)
	if err != nil || len(data) == 0 {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return fmt.Errorf("ledger %s %w", path, safefile.ErrSymlink)
		}
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return &fs.PathError{Op: "append", Path: path, Err: safefile.ErrNotRegular}
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return &fs.PathError{Op: "lock", Path: path, Err: err}
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	if torn, err := tornTail(path); err != nil {
		return err
	} else if torn {
		data = append([]byte{'\n'}, data...)
	}
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("append to ledger %s: %w", path, err)
	}
	return f.Close()
}

// tornTail reports whether the file at path is non-empty and does not end
// in a newline.
func tornTail(path string) (bool, error) {
	f, err := safefile.OpenRegular(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return false, err
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], fi.Size()-1); err != nil {
		return false, err
	}
	return last[0] != '\n', nil
}
