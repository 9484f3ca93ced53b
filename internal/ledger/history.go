package ledger

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"

	mstats "github.com/aclements/go-moremath/stats"
)

// Key identifies a series: one unit of one benchmark.
type Key struct {
	Package string `json:"package"`
	Name    string `json:"benchmark"`
	Unit    string `json:"unit"`
}

// String is "package.Name unit".
func (k Key) String() string {
	if k.Package == "" {
		return k.Name + " " + k.Unit
	}
	return k.Package + "." + k.Name + " " + k.Unit
}

// KeyOf is an entry's series.
func KeyOf(e Entry) Key { return Key{e.Package, e.Name, e.Unit} }

// Options are the analysis's settings.
type Options struct {
	// Threshold is the smallest summed change that is a creep (0.05:
	// a window whose regression is at least 5 %).
	Threshold float64 `json:"threshold"`
	// Alpha is the suite-wide false-creep rate (0.01).
	Alpha float64 `json:"alpha"`
	// Confidence is the level of the levels' intervals (0.95).
	Confidence float64 `json:"confidence"`
}

// DefaultOptions are the gate's defaults: 5 %, α 0.01, 95 %.
func DefaultOptions() Options { return Options{Threshold: 0.05, Alpha: 0.01, Confidence: 0.95} }

// Merge is one recorded merge of a series, with the level after it.
type Merge struct {
	Base     Commit  `json:"base"`
	Head     Commit  `json:"head"`
	Change   float64 `json:"change"`
	LogRatio float64 `json:"log_ratio"`
	SE       float64 `json:"se"`
	N        int     `json:"n"`
	Status   string  `json:"status"`
	// Level is the chained change since the series' first merge's base,
	// as a fraction; LevelLow and LevelHigh its interval at
	// Options.Confidence (the summed variances: it widens as √merges).
	Level     float64 `json:"level"`
	LevelLow  float64 `json:"level_low"`
	LevelHigh float64 `json:"level_high"`
}

// Series is one unit of one benchmark through the ledger.
type Series struct {
	Key
	Direction string  `json:"direction"`
	Merges    []Merge `json:"merges"`
	// Level, Low and High are the last merge's level and interval.
	Level float64 `json:"level"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
}

// Contributor is one merge's part of a creep.
type Contributor struct {
	SHA    string  `json:"sha"`
	Change float64 `json:"change"`
}

// Creep is a window of consecutive merges of one series whose summed
// change is a regression of at least the threshold, significant with the
// suite-wide correction (see docs/ledger.md).
type Creep struct {
	Key
	Direction string `json:"direction"`
	// Change is the window's summed change (a fraction); Low and High its
	// simultaneous interval (1 − 2α/M, M the number of windows tested).
	Change float64 `json:"change"`
	Low    float64 `json:"low"`
	High   float64 `json:"high"`
	// First and Last are the head commits of the window's first and last
	// merge (full SHAs); Since is the first merge's head commit time.
	First string    `json:"first"`
	Last  string    `json:"last"`
	Since time.Time `json:"since"`
	// Merges is the window's length; P its adjusted p-value (Holm over
	// every window of every series).
	Merges int     `json:"merges"`
	P      float64 `json:"p"`
	// Contributors are the window's merges that moved it the wrong way,
	// largest first (at most five).
	Contributors []Contributor `json:"contributors"`
	// Standing is the change from the window's first merge to the
	// series' last (a fraction): what the creep amounts to now.
	Standing float64 `json:"standing"`
	// Running reports that Standing still passes the threshold.
	Running bool `json:"running"`
	// first, last index the window in the series' merges.
	first, last int
}

// History is the analysis of a ledger.
type History struct {
	Options Options  `json:"options"`
	Series  []Series `json:"benchmarks"`
	Creeps  []Creep  `json:"creeps"`
	// Windows is the number of windows tested (the correction's M).
	Windows int `json:"windows"`
}

// Running returns the creep of series k that is still running, if any.
func (h History) Running(k Key) *Creep {
	for i := range h.Creeps {
		if h.Creeps[i].Key == k && h.Creeps[i].Running {
			return &h.Creeps[i]
		}
	}
	return nil
}

// Find returns the series of key k, or nil.
func (h History) Find(k Key) *Series {
	for i := range h.Series {
		if h.Series[i].Key == k {
			return &h.Series[i]
		}
	}
	return nil
}

// Analyze chains each series' changes into levels and finds the creeps.
// Entries are taken in ledger order; a merge recorded twice for a series
// (the same head commit) counts once, its last entry.
func Analyze(entries []Entry, o Options) History {
	h := History{Options: o}
	for _, s := range chain(entries, o.Confidence) {
		h.Series = append(h.Series, s)
	}
	h.Creeps, h.Windows = creeps(h.Series, o)
	return h
}

// chain groups entries by series (first-seen order) and computes levels.
func chain(entries []Entry, confidence float64) []Series {
	idx := map[Key]int{}
	var out []Series
	at := map[Key]map[string]int{}
	for _, e := range entries {
		k := KeyOf(e)
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, Series{Key: k, Direction: e.Direction})
			at[k] = map[string]int{}
		}
		m := Merge{Base: e.Base, Head: e.Head, Change: e.Change, LogRatio: e.LogRatio, SE: e.SE, N: e.N, Status: e.Status}
		if j, dup := at[k][e.Head.SHA]; dup {
			out[i].Merges[j] = m
			continue
		}
		at[k][e.Head.SHA] = len(out[i].Merges)
		out[i].Merges = append(out[i].Merges, m)
	}
	zc := z(confidence)
	for i := range out {
		var sum, v float64
		for j := range out[i].Merges {
			m := &out[i].Merges[j]
			sum += m.LogRatio
			v += m.SE * m.SE
			m.Level = math.Expm1(sum)
			m.LevelLow, m.LevelHigh = math.Expm1(sum-zc*math.Sqrt(v)), math.Expm1(sum+zc*math.Sqrt(v))
		}
		if n := len(out[i].Merges); n > 0 {
			last := out[i].Merges[n-1]
			out[i].Level, out[i].Low, out[i].High = last.Level, last.LevelLow, last.LevelHigh
		}
	}
	return out
}

// worse is +1 when a positive log ratio is a regression of the direction.
func worse(direction string) float64 {
	if direction == Higher {
		return -1
	}
	return 1
}

// window is one tested window of one series.
type window struct {
	series, first, last int
	sum, v, z, p        float64
}

// df is the degrees of freedom of a merge's standard error: it was
// estimated from N rounds (or samples), so its error is Student's t with
// N−1 degrees of freedom, not normal.
func (m Merge) df() float64 {
	if m.N < 2 {
		return 1
	}
	return float64(m.N - 1)
}

// pValue is the one-sided p-value of sum with variance v, the sum of the
// merges' se², and w4 the sum of se⁴/df: Student's t with the
// Welch–Satterthwaite degrees of freedom v²/w4. A p-value above alpha
// may be the normal's (smaller than the t's, and above alpha all the same).
func pValue(sum, v, w4, alpha float64) (z, p float64) {
	if v == 0 {
		if sum > 0 {
			return math.Inf(1), 0
		}
		return 0, 1
	}
	z = sum / math.Sqrt(v)
	pz := 0.5 * math.Erfc(z/math.Sqrt2)
	if pz > alpha {
		// Student's t has heavier tails than the normal: p ≥ pz.
		return z, pz
	}
	df := math.Inf(1)
	if w4 > 0 {
		df = v * v / w4
	}
	if math.IsInf(df, 1) || df > 1e6 {
		return z, pz
	}
	return z, mstats.TDist{V: df}.CDF(-z)
}

// creeps tests every window of consecutive merges of every series: a
// one-sided z test of the summed log ratio in the direction of a
// regression, Holm's step-down over all windows of all series, and a
// rejected window is a creep when its summed regression is at least the
// threshold. Per series the creeps reported are the rejected windows of
// largest lower bound that do not overlap (pick).
func creeps(series []Series, o Options) ([]Creep, int) {
	m := 0
	for _, s := range series {
		n := len(s.Merges)
		m += n * (n + 1) / 2
	}
	if m == 0 {
		return nil, 0
	}
	var cand []window
	for si, s := range series {
		cand = append(cand, candidates(si, s, o.Alpha)...)
	}
	slices.SortFunc(cand, func(a, b window) int { return cmp.Compare(a.p, b.p) })
	min := math.Log1p(o.Threshold)
	bySeries := map[int][]window{}
	padj := 0.0
	for k, w := range cand {
		if w.p > o.Alpha/float64(m-k) {
			break
		}
		padj = math.Max(padj, math.Min(1, w.p*float64(m-k)))
		w.p = padj
		if w.sum >= min {
			bySeries[w.series] = append(bySeries[w.series], w)
		}
	}
	zs := math.Sqrt2 * math.Erfinv(1-2*o.Alpha/float64(m))
	var out []Creep
	for si, s := range series {
		for _, w := range pick(bySeries[si], zs) {
			out = append(out, creep(s, trim(s, w, min), zs, min))
		}
	}
	slices.SortStableFunc(out, func(a, b Creep) int { return cmp.Compare(b.Change*worse(b.Direction), a.Change*worse(a.Direction)) })
	return out, m
}

// candidates lists the windows of series s whose one-sided p-value is at
// most alpha (no other window can be rejected by Holm at alpha).
func candidates(si int, s Series, alpha float64) []window {
	n := len(s.Merges)
	sign := worse(s.Direction)
	sum := make([]float64, n+1)
	v := make([]float64, n+1)
	w4 := make([]float64, n+1)
	for i, m := range s.Merges {
		sum[i+1] = sum[i] + sign*m.LogRatio
		v[i+1] = v[i] + m.SE*m.SE
		w4[i+1] = w4[i] + math.Pow(m.SE, 4)/m.df()
	}
	var out []window
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			w := window{series: si, first: i, last: j, sum: sum[j+1] - sum[i], v: max(0, v[j+1]-v[i])}
			if w.sum <= 0 {
				continue
			}
			w.z, w.p = pValue(w.sum, w.v, max(0, w4[j+1]-w4[i]), alpha)
			if w.p <= alpha {
				out = append(out, w)
			}
		}
	}
	return out
}

// pick returns the windows whose summed regression has the largest lower
// bound (sum − zs·√v) that do not overlap (the shorter, then the earlier,
// of equal ones), in merge order. The bound neither stops at one of the
// creep's steps, as the largest z would, nor runs on into merges that
// only add noise, as the largest sum would.
func pick(ws []window, zs float64) []window {
	lower := func(w window) float64 { return w.sum - zs*math.Sqrt(w.v) }
	slices.SortStableFunc(ws, func(a, b window) int {
		if c := cmp.Compare(lower(b), lower(a)); c != 0 {
			return c
		}
		if c := cmp.Compare(a.last-a.first, b.last-b.first); c != 0 {
			return c
		}
		return cmp.Compare(a.first, b.first)
	})
	var out []window
	for _, w := range ws {
		if !slices.ContainsFunc(out, func(o window) bool { return w.first <= o.last && o.first <= w.last }) {
			out = append(out, w)
		}
	}
	slices.SortFunc(out, func(a, b window) int { return cmp.Compare(a.first, b.first) })
	return out
}

// trim drops from both ends of window w the merges that moved the level
// the wrong way by less than a tenth of the threshold (min, a log ratio),
// as long as what remains still reaches the threshold: a merge that hardly
// moved neither starts nor ends a creep. The largest lower bound would
// otherwise take in every merge of near-exact series (instructions,
// se ≈ 0) whose change is a few parts per million. The window keeps the
// adjusted p-value of the window Holm rejected, which contains it.
func trim(s Series, w window, min float64) window {
	sign := worse(s.Direction)
	small := func(i int) bool { return sign*s.Merges[i].LogRatio < min/10 }
	t := w
	for t.first < t.last && small(t.first) {
		t.first++
	}
	for t.last > t.first && small(t.last) {
		t.last--
	}
	sum, v := 0.0, 0.0
	for _, m := range s.Merges[t.first : t.last+1] {
		sum += sign * m.LogRatio
		v += m.SE * m.SE
	}
	if sum < min {
		return w
	}
	t.sum, t.v = sum, v
	return t
}

// creep describes window w of series s; zs is the simultaneous quantile.
func creep(s Series, w window, zs, min float64) Creep {
	sign := worse(s.Direction)
	lo, hi := sign*w.sum-zs*math.Sqrt(w.v), sign*w.sum+zs*math.Sqrt(w.v)
	c := Creep{
		Key: s.Key, Direction: s.Direction,
		Change: math.Expm1(sign * w.sum), Low: math.Expm1(lo), High: math.Expm1(hi),
		First: s.Merges[w.first].Head.SHA, Last: s.Merges[w.last].Head.SHA,
		Since: s.Merges[w.first].Head.Time, Merges: w.last - w.first + 1, P: w.p,
		first: w.first, last: w.last,
	}
	var contrib []Contributor
	for _, m := range s.Merges[w.first : w.last+1] {
		if sign*m.LogRatio > 0 {
			contrib = append(contrib, Contributor{SHA: m.Head.SHA, Change: m.Change})
		}
	}
	slices.SortStableFunc(contrib, func(a, b Contributor) int {
		return cmp.Compare(sign*math.Log1p(b.Change), sign*math.Log1p(a.Change))
	})
	c.Contributors = contrib[:min0(len(contrib), 5)]
	standing := 0.0
	for _, m := range s.Merges[w.first:] {
		standing += m.LogRatio
	}
	c.Standing = math.Expm1(standing)
	c.Running = sign*standing >= min
	return c
}

func min0(a, b int) int {
	if a < b {
		return a
	}
	return b
}

// Since returns the entries after a revision: from the first entry whose
// base commit's SHA starts with rev, or after the last entry whose head
// commit's does (the level at rev is then 0). ok is false when no entry
// names rev. rev must be at least 4 hexadecimal digits.
func Since(entries []Entry, rev string) (out []Entry, ok bool) {
	rev = strings.ToLower(rev)
	if len(rev) < 4 || strings.Trim(rev, "0123456789abcdef") != "" {
		return nil, false
	}
	for i, e := range entries {
		if strings.HasPrefix(e.Base.SHA, rev) {
			return entries[i:], true
		}
	}
	for i := len(entries) - 1; i >= 0; i-- {
		if strings.HasPrefix(entries[i].Head.SHA, rev) {
			return entries[i+1:], true
		}
	}
	return nil, false
}

// SinceTime returns the entries whose head commit is at or after t.
func SinceTime(entries []Entry, t time.Time) []Entry {
	var out []Entry
	for _, e := range entries {
		if !e.Head.Time.Before(t) {
			out = append(out, e)
		}
	}
	return out
}
