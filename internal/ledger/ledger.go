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
	"slices"
	"strings"
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
	// test binaries ran the same code); N the number of pairs (paired)
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
	case !bounded(e.LogRatio) || !bounded(e.Low) || !bounded(e.High) || !bounded(e.SE):
		return fmt.Errorf("log_ratio, low, high and se must lie within ±%v (a change of ×%.0e)", MaxLogRatio, math.Exp(MaxLogRatio))
	case e.Low > e.LogRatio || e.LogRatio > e.High:
		return fmt.Errorf("interval [%v, %v] does not hold log_ratio %v", e.Low, e.High, e.LogRatio)
	case !finite(e.Change):
		return errors.New("change must be a finite number")
	}
	return nil
}

// MaxLogRatio bounds a merge's log ratio, its interval and its standard
// error in Validate: 20 is a change of ×5·10⁸, beyond any measured one.
// With it, nothing the analysis computes from a valid ledger overflows
// (levels are capped besides: [expm1]).
const MaxLogRatio = 20

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func bounded(v float64) bool { return math.Abs(v) <= MaxLogRatio }

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

// The limits of what Read takes from a ledger. A ledger grows by one line
// per benchmark and unit at every merge, and every pull request's run
// reads it: past them, its oldest part is left out (Skipped says how
// much), so that a ledger of any size is read in bounded time and memory.
const (
	// MaxBytes: of a larger ledger, the lines that start in its last
	// 64 MiB (about 130,000 entries; a seekable reader starts there, any
	// other is read through, keeping only its newest lines).
	MaxBytes = 64 << 20
	// MaxEntries: the newest 200,000 entries.
	MaxEntries = 200_000
	// MaxSeries: the 5,000 series recorded most recently.
	MaxSeries = 5_000
	// MaxLine is the longest line: an entry is about 600 bytes.
	MaxLine = 1 << 20
)

// limits are the limits Read applies (the constants; tests shrink them).
var limits = struct {
	bytes           int64
	entries, series int
	line            int
}{MaxBytes, MaxEntries, MaxSeries, MaxLine}

// Skipped is what the limits left out of a ledger, its oldest part.
type Skipped struct {
	// Bytes are the ledger's oldest bytes, skipped unread past MaxBytes.
	Bytes int64
	// Entries are the older entries read and dropped: past MaxBytes or
	// MaxEntries, or of the Series that were not recorded lately past
	// MaxSeries.
	Entries, Series int
}

// Any reports whether anything was left out.
func (s Skipped) Any() bool { return s != Skipped{} }

// String says what was left out: "its oldest 812.4 MB and 1200 older
// entries".
func (s Skipped) String() string {
	var parts []string
	if s.Bytes > 0 {
		parts = append(parts, fmt.Sprintf("its oldest %.1f MB", float64(s.Bytes)/1e6))
	}
	if s.Entries > 0 {
		p := fmt.Sprintf("%d older entries", s.Entries)
		if s.Series > 0 {
			p += fmt.Sprintf(" (of them, every entry of the %d series recorded least recently)", s.Series)
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " and ")
}

// Read reads a ledger: JSON Lines of entries, blank lines skipped, within
// the limits above (its newest part; [ReadTail] says what was left out).
// name is used in error messages ("ledger.jsonl:12: ..."). A line of
// another version or that does not parse is an error naming the line.
func Read(r io.Reader, name string) ([]Entry, error) {
	entries, _, err := ReadTail(r, name)
	return entries, err
}

// ReadTail is Read that also returns what the limits left out.
func ReadTail(r io.Reader, name string) ([]Entry, Skipped, error) {
	var sk Skipped
	br := bufio.NewReaderSize(r, 64<<10)
	at := int64(0) // the offset of the next line, from where r was
	if s, ok := r.(io.Seeker); ok {
		// The newest lines of a file (or of bytes in memory) are read
		// without the older ones: from the first line that starts in its
		// last MaxBytes, found by reading from the byte before them to
		// the end of its line.
		here, err1 := s.Seek(0, io.SeekCurrent)
		end, err2 := s.Seek(0, io.SeekEnd)
		if err := errors.Join(err1, err2); err != nil {
			return nil, sk, fmt.Errorf("%s: %w", name, err)
		}
		from := here
		if end-here > limits.bytes {
			from = end - limits.bytes - 1
		}
		if _, err := s.Seek(from, io.SeekStart); err != nil {
			return nil, sk, fmt.Errorf("%s: %w", name, err)
		}
		if from > here {
			skip, err := skipLine(br)
			sk.Bytes = from - here + skip
			at = sk.Bytes
			if err == io.EOF {
				return nil, sk, nil
			}
			if err != nil {
				return nil, sk, fmt.Errorf("%s: %w", name, err)
			}
		}
	}
	where := func(n int, at int64) string {
		if sk.Bytes > 0 {
			return fmt.Sprintf("%s: the line at byte %d", name, at)
		}
		return fmt.Sprintf("%s:%d", name, n)
	}
	// kept are the newest entries read, within MaxBytes and MaxEntries
	// (a reader that cannot seek is read through).
	type line struct {
		e    Entry
		size int64
	}
	var kept []line
	var keptBytes int64
	in := interner{}
	for n := 1; ; n++ {
		raw, err := readLine(br)
		if errors.Is(err, errLongLine) {
			return nil, sk, fmt.Errorf("%s: a line longer than %d bytes", where(n, at), limits.line)
		}
		if err != nil && err != io.EOF {
			return nil, sk, fmt.Errorf("%s: %w", name, err)
		}
		if text := bytes.TrimSpace(raw); len(text) > 0 {
			var e Entry
			if err := json.Unmarshal(text, &e); err != nil {
				return nil, sk, fmt.Errorf("%s: %v", where(n, at), err)
			}
			if err := e.Validate(); err != nil {
				return nil, sk, fmt.Errorf("%s: %v", where(n, at), err)
			}
			in.entry(&e)
			kept = append(kept, line{e, int64(len(raw))})
			keptBytes += int64(len(raw))
			for len(kept) > limits.entries || keptBytes > limits.bytes {
				keptBytes -= kept[0].size
				sk.Entries++
				kept[0] = line{}
				kept = kept[1:]
			}
		}
		at += int64(len(raw))
		if err == io.EOF {
			break
		}
	}
	out := make([]Entry, len(kept))
	for i := range kept {
		out[i] = kept[i].e
	}
	var dropped int
	out, sk.Series, dropped = recentSeries(out, limits.series)
	sk.Entries += dropped
	return out, sk, nil
}

// interner shares the strings that entries repeat: every series names
// its package and unit, every merge's commits recur in each of its
// series.
type interner map[string]string

func (in interner) s(p *string) {
	if v, ok := in[*p]; ok {
		*p = v
	} else if len(in) < 2*limits.entries {
		in[*p] = *p
	}
}

func (in interner) entry(e *Entry) {
	for _, p := range []*string{&e.Base.SHA, &e.Base.Subject, &e.Head.SHA, &e.Head.Subject, &e.Package, &e.Name, &e.Unit,
		&e.Direction, &e.Test, &e.Status, &e.Go, &e.Machine.CPU, &e.Machine.Kernel, &e.Machine.Arch, &e.Machine.Level, &e.Machine.Go} {
		in.s(p)
	}
}

// errLongLine is readLine's error for a line past MaxLine.
var errLongLine = errors.New("line too long")

// readLine returns the next line with its newline, at most MaxLine bytes.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(line)+len(frag) > limits.line {
			return nil, errLongLine
		}
		line = append(line, frag...)
		if err == bufio.ErrBufferFull {
			continue
		}
		return line, err
	}
}

// skipLine reads past the next newline and returns the bytes it read.
func skipLine(br *bufio.Reader) (int64, error) {
	var n int64
	for {
		frag, err := br.ReadSlice('\n')
		n += int64(len(frag))
		if err == bufio.ErrBufferFull {
			continue
		}
		return n, err
	}
}

// recentSeries keeps the entries of the max series recorded most recently
// (whose last entry is latest), in ledger order; series and entries are
// how many it dropped.
func recentSeries(all []Entry, max int) (out []Entry, series, entries int) {
	last := map[Key]int{}
	for i, e := range all {
		last[KeyOf(e)] = i
	}
	if len(last) <= max {
		return all, 0, 0
	}
	lasts := make([]int, 0, len(last))
	for _, i := range last {
		lasts = append(lasts, i)
	}
	slices.Sort(lasts)
	cut := lasts[len(lasts)-max] // the oldest last entry kept
	for _, e := range all {
		if last[KeyOf(e)] >= cut {
			out = append(out, e)
		}
	}
	return out, len(last) - max, len(all) - len(out)
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
