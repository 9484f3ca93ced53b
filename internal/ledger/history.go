package ledger

import (
	"cmp"
	"context"
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
	// Recent is how many of a series' last merges its windows are tested
	// over (0: RecentMerges).
	Recent int `json:"recent"`
}

// RecentMerges is how many of each series' last merges the creep test
// looks at: windows of consecutive merges within them, RecentMerges ×
// (RecentMerges+1) / 2 at most per series. Older merges still make the
// levels. A creep is a few to a few dozen merges: a longer one is found
// by its newest part, and the noise of a window of n merges grows as √n,
// so in time a window of a hundred merges needs a creep of +20 % or more
// at 1 % noise per merge to stand out anyway.
const RecentMerges = 100

// maxCandidates bounds the windows whose p-values Holm's step-down keeps
// (8 MiB of them): past it the step-down stops early, which rejects fewer
// windows and keeps the error rate.
var maxCandidates = 1 << 20

// DefaultOptions are the gate's defaults: 5 %, α 0.01, 95 %, the last
// RecentMerges merges.
func DefaultOptions() Options {
	return Options{Threshold: 0.05, Alpha: 0.01, Confidence: 0.95, Recent: RecentMerges}
}

func (o Options) recent() int {
	if o.Recent > 0 {
		return o.Recent
	}
	return RecentMerges
}

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
	// Stopped reports that Holm's step-down stopped at maxCandidates
	// windows (more might have been rejected).
	Stopped bool `json:"stopped,omitempty"`
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
	h, _ := AnalyzeContext(context.Background(), entries, o)
	return h
}

// AnalyzeContext is Analyze, stopped with ctx's error when ctx is done.
// Its time is linear in the entries and in the windows tested, at most
// MaxEntries × RecentMerges / 2; its memory linear in the entries.
func AnalyzeContext(ctx context.Context, entries []Entry, o Options) (History, error) {
	h := History{Options: o}
	h.Options.Recent = o.recent()
	h.Series = chain(entries, o.Confidence)
	var err error
	h.Creeps, h.Windows, h.Stopped, err = creeps(ctx, h.Series, h.Options)
	return h, err
}

// maxLevel caps the log of a level (and of a creep's change): exp(700) is
// about 10³⁰⁴, finite, so that every level of a valid ledger (each merge
// within ±MaxLogRatio, hundreds of thousands of them) is a number JSON,
// the sparkline and the page can show.
const maxLevel = 700

// expm1 is math.Expm1 of x capped at maxLevel.
func expm1(x float64) float64 { return math.Expm1(min(x, maxLevel)) }

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
			m.Level = expm1(sum)
			m.LevelLow, m.LevelHigh = expm1(sum-zc*math.Sqrt(v)), expm1(sum+zc*math.Sqrt(v))
		}
		if n := len(out[i].Merges); n > 0 {
			last := out[i].Merges[n-1]
			out[i].Level, out[i].Low, out[i].High = last.Level, last.LevelLow, last.LevelHigh
		}
	}
	return out
}

// Recent are the levels after each of the series' last n merges, relative
// to the level before the first of them (fractions, oldest first: a
// trend's sparkline).
func (s Series) Recent(n int) []float64 {
	from := max(0, len(s.Merges)-n)
	var out []float64
	sum := 0.0
	for _, m := range s.Merges[from:] {
		sum += m.LogRatio
		out = append(out, expm1(sum))
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
	first, last  int
	sum, v, z, p float64
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

// creeps tests every window of consecutive merges within the last
// o.Recent merges of every series: a one-sided test of the summed log
// ratio in the direction of a regression, Holm's step-down over all
// windows of all series, and a rejected window is a creep when its summed
// regression is at least the threshold. Per series the creeps reported
// are the rejected windows of largest lower bound that do not overlap
// (pick). Two passes over the windows keep memory bounded: the first
// keeps the p-values that Holm can reject (at most maxCandidates of
// them) and finds the step-down's last rejection; the second collects
// each series' rejected windows in turn.
func creeps(ctx context.Context, series []Series, o Options) (out []Creep, m int, stopped bool, err error) {
	k := o.recent()
	for _, s := range series {
		n := min(len(s.Merges), k)
		m += n * (n + 1) / 2
	}
	if m == 0 {
		return nil, 0, false, nil
	}
	var ps pvalues
	for _, s := range series {
		if err := ctx.Err(); err != nil {
			return nil, m, false, err
		}
		windows(s, k, o.Alpha, func(w window) { ps.add(w.p) })
	}
	rejected, stopped := ps.holm(o.Alpha, m)
	least := math.Log1p(o.Threshold)
	zs := math.Sqrt2 * math.Erfinv(1-2*o.Alpha/float64(m))
	if len(rejected) == 0 {
		return nil, m, stopped, nil
	}
	cut := rejected[len(rejected)-1].p
	for _, s := range series {
		if err := ctx.Err(); err != nil {
			return nil, m, stopped, err
		}
		var ws []window
		windows(s, k, o.Alpha, func(w window) {
			if w.p <= cut && w.sum >= least {
				w.p = adjusted(rejected, w.p)
				ws = append(ws, w)
			}
		})
		for _, w := range pick(ws, zs) {
			out = append(out, creep(s, trim(s, w, least), zs, least))
		}
	}
	slices.SortStableFunc(out, func(a, b Creep) int { return cmp.Compare(b.Change*worse(b.Direction), a.Change*worse(a.Direction)) })
	return out, m, stopped, nil
}

// pvalues keeps the smallest p-values added, at most maxCandidates.
type pvalues struct {
	p    []float64
	full bool // values were dropped: every one above p's largest
}

func (ps *pvalues) add(p float64) {
	ps.p = append(ps.p, p)
	if len(ps.p) >= 2*maxCandidates {
		ps.trim()
	}
}

func (ps *pvalues) trim() {
	slices.Sort(ps.p)
	if len(ps.p) > maxCandidates {
		ps.p, ps.full = ps.p[:maxCandidates], true
	}
}

// step is one rejection of Holm's step-down: its p-value and adjusted
// p-value.
type step struct{ p, adj float64 }

// holm runs Holm's step-down at alpha over m tests whose p-values at most
// alpha are ps: the rejections in order, and whether it stopped for want
// of the p-values dropped past maxCandidates (a subset of Holm's
// rejections: the error rate holds).
func (ps *pvalues) holm(alpha float64, m int) (out []step, stopped bool) {
	ps.trim()
	adj := 0.0
	for k, p := range ps.p {
		if p > alpha/float64(m-k) {
			return out, false
		}
		adj = math.Max(adj, math.Min(1, p*float64(m-k)))
		out = append(out, step{p, adj})
	}
	return out, ps.full
}

// adjusted is the adjusted p-value of a rejected window whose p-value is
// p: that of the first rejection with that p-value (ties share it).
func adjusted(rejected []step, p float64) float64 {
	i, _ := slices.BinarySearchFunc(rejected, p, func(s step, p float64) int { return cmp.Compare(s.p, p) })
	return rejected[min(i, len(rejected)-1)].adj
}

// windows calls f with every window within the last k merges of series s
// whose one-sided p-value is at most alpha (no other window can be
// rejected by Holm at alpha); first and last index s.Merges.
func windows(s Series, k int, alpha float64, f func(window)) {
	from := max(0, len(s.Merges)-k)
	ms := s.Merges[from:]
	n := len(ms)
	sign := worse(s.Direction)
	sum := make([]float64, n+1)
	v := make([]float64, n+1)
	w4 := make([]float64, n+1)
	for i, m := range ms {
		sum[i+1] = sum[i] + sign*m.LogRatio
		v[i+1] = v[i] + m.SE*m.SE
		w4[i+1] = w4[i] + math.Pow(m.SE, 4)/m.df()
	}
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			w := window{first: from + i, last: from + j, sum: sum[j+1] - sum[i], v: max(0, v[j+1]-v[i])}
			if w.sum <= 0 {
				continue
			}
			w.z, w.p = pValue(w.sum, w.v, max(0, w4[j+1]-w4[i]), alpha)
			if w.p <= alpha {
				f(w)
			}
		}
	}
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
func creep(s Series, w window, zs, least float64) Creep {
	sign := worse(s.Direction)
	lo, hi := sign*w.sum-zs*math.Sqrt(w.v), sign*w.sum+zs*math.Sqrt(w.v)
	c := Creep{
		Key: s.Key, Direction: s.Direction,
		Change: expm1(sign * w.sum), Low: expm1(lo), High: expm1(hi),
		First: s.Merges[w.first].Head.SHA, Last: s.Merges[w.last].Head.SHA,
		Since: s.Merges[w.first].Head.Time, Merges: w.last - w.first + 1, P: w.p,
		first: w.first, last: w.last,
	}
	var contrib []Merge
	for _, m := range s.Merges[w.first : w.last+1] {
		if sign*m.LogRatio > 0 {
			contrib = append(contrib, m)
		}
	}
	slices.SortStableFunc(contrib, func(a, b Merge) int { return cmp.Compare(sign*b.LogRatio, sign*a.LogRatio) })
	for _, m := range contrib[:min(len(contrib), 5)] {
		c.Contributors = append(c.Contributors, Contributor{SHA: m.Head.SHA, Change: m.Change})
	}
	standing := 0.0
	for _, m := range s.Merges[w.first:] {
		standing += m.LogRatio
	}
	c.Standing = expm1(standing)
	c.Running = sign*standing >= least
	return c
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
