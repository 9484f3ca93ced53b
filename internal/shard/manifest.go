package shard

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/internal/safefile"
)

// FileName is the manifest's name in a shard's output directory.
const FileName = "shard.json"

// Format is the version of the manifest's format that Write writes and
// Read accepts.
const Format = 1

// Manifest is what a shard records next to its raw results so that the
// merge can prove that every benchmark unit was measured, by one shard.
type Manifest struct {
	Format int  `json:"format"` // set by Write
	Shard  Spec `json:"shard"`  // "2/4"
	// All is every unit ID the shard discovered (runner.Unit.ID), before
	// assignment; every shard of a run should discover the same set.
	All []string `json:"all"`
	// Assigned are the IDs of the units this shard measured.
	Assigned []string `json:"assigned"`
	// Family is the number of the suite's units on both sides (its time
	// rows): a shard judges and confirms its rows in the suite's family,
	// so that the merged verdict decides them as a whole run does.
	Family int `json:"family,omitempty"`
	// Complete is set when every assigned unit ran every round: the shard
	// was neither cancelled nor stopped by an error.
	Complete bool   `json:"complete"`
	Rounds   int    `json:"rounds"`   // rounds completed
	Failures int    `json:"failures"` // benchmark failures (informational: the merged report lists them)
	BaseSHA  string `json:"base_sha"`
	HeadSHA  string `json:"head_sha"`
	// PRHeadSHA is the pull request's head commit when HeadSHA is GitHub's
	// test merge commit of it (a pull_request run), for the workflow_run job
	// that compares it with the event's head_sha; informational only.
	PRHeadSHA string `json:"pr_head_sha,omitempty"`
	Tool      string `json:"tool"` // "benchgate v1.2.0"
	// Settings, if set, describe what was measured and how ("bench=. count=10
	// benchtime=100ms cpu=4"); all shards of a run must agree on them.
	Settings string `json:"settings,omitempty"`
	// BaseGo and HeadGo are the Go toolchains that built each side
	// ("go1.26.8"); "" if unknown. All shards of a run must agree on them.
	BaseGo string `json:"base_go,omitempty"`
	HeadGo string `json:"head_go,omitempty"`
}

// Write writes m as dir/shard.json (creating dir, which may not be a
// symbolic link), atomically: a reader sees the old file or the new one,
// never half of one. All and Assigned are written sorted, [] when empty.
func (m Manifest) Write(dir string) error {
	m.Format = Format
	m.All = sortedCopy(m.All)
	m.Assigned = sortedCopy(m.Assigned)
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("shard manifest: %w", err)
	}
	// dir's parents are the caller's; dir itself may not be a symbolic
	// link. The temporary file is new (O_EXCL), and the rename replaces a
	// link at shard.json rather than writing through it.
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("shard manifest: %w", err)
	}
	if err := safefile.MkdirAll(filepath.Dir(dir), dir, 0o755); err != nil {
		return fmt.Errorf("shard manifest: %w", err)
	}
	f, err := os.CreateTemp(dir, ".shard-*.json")
	if err != nil {
		return fmt.Errorf("shard manifest: %w", err)
	}
	_, err = f.Write(append(b, '\n'))
	err = errors.Join(err, f.Chmod(0o644), f.Close())
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, FileName))
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("shard manifest %s: %w", filepath.Join(dir, FileName), err)
	}
	return nil
}

// Read reads dir/shard.json, of at most MaxJSONSize bytes. A directory
// without one gives an error wrapping fs.ErrNotExist; errors name the
// file.
func Read(dir string) (Manifest, error) {
	name := filepath.Join(dir, FileName)
	b, err := ReadBounded(name, MaxJSONSize)
	if err != nil {
		return Manifest{}, fmt.Errorf("shard manifest: %w", err)
	}
	return Decode(name, b)
}

// Decode decodes and checks the manifest b; name is its file, for errors.
func Decode(name string, b []byte) (Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return Manifest{}, fmt.Errorf("shard manifest %s: %w", name, err)
	}
	switch {
	case m.Format == 0:
		return Manifest{}, fmt.Errorf("shard manifest %s: no format version: not written by benchgate", name)
	case m.Format > Format:
		return Manifest{}, fmt.Errorf("shard manifest %s: format %d is newer than this benchgate's (%d): merge with the benchgate that measured", name, m.Format, Format)
	case m.Shard.IsZero():
		return Manifest{}, fmt.Errorf("shard manifest %s: no shard", name)
	case m.Rounds < 0 || m.Failures < 0:
		return Manifest{}, fmt.Errorf("shard manifest %s: negative count", name)
	}
	return m, nil
}

// Coverage is how the manifests of one sharded run cover it
// (CheckCoverage): Missing are the unit IDs that some shard discovered and
// no shard measured, sorted; Problems everything else that makes the
// merged result incomplete or inconsistent. A merge must fail unless both
// are empty: a missing or failed shard never passes silently.
type Coverage struct {
	Missing  []string
	Problems []Problem
}

// Complete reports whether the shards cover their run.
func (c Coverage) Complete() bool { return len(c.Missing) == 0 && len(c.Problems) == 0 }

// A Problem is one reason the shards do not cover their run: a code, the
// shard and the units concerned.
type Problem struct {
	Code ProblemCode
	// Shard is the shard concerned; Count how many times it appears
	// (Twice) or the rounds it completed (Incomplete).
	Shard Spec
	Count int
	// On is what the shards disagree on (Disagree), Groups the shards of
	// each value in order, each with one manifest that holds it.
	On     Agreement
	Groups []Group
	// Units are the unit IDs concerned, sorted (Lacks: of Of found by the
	// others; Unlisted; Unmeasured); Shared those measured by more than
	// one shard, with the shards.
	Units  []string
	Of     int
	Shared []Group
}

// A Group is shards that agree (Shards, "2/4"; Manifest one of theirs),
// or the shards that measured one Unit.
type Group struct {
	Shards   []string
	Manifest Manifest
	Unit     string
}

// ProblemCode says what a Problem is.
type ProblemCode string

// The problems, in the order CheckCoverage finds them.
const (
	NoShards   ProblemCode = "no-shards"  // no manifests at all
	Disagree   ProblemCode = "disagree"   // the shards disagree On something
	Missing    ProblemCode = "missing"    // Shard has no manifest (its job failed, or its artifact was not downloaded)
	Twice      ProblemCode = "twice"      // Shard has Count manifests
	Incomplete ProblemCode = "incomplete" // Shard stopped (cancelled, or by an error) after Count rounds
	Lacks      ProblemCode = "lacks"      // Shard did not discover Units the others did
	Unlisted   ProblemCode = "unlisted"   // Shard measured Units it did not list
	Shared     ProblemCode = "shared"     // units measured by more than one shard (Shared): different partitions
	Unmeasured ProblemCode = "unmeasured" // Units measured by no shard although every shard reported
)

// Agreement is what every shard of a run must agree on.
type Agreement string

// What shards agree on, in the order they are checked.
const (
	OnCount      Agreement = "count" // the number of shards
	OnCommits    Agreement = "commits"
	OnTool       Agreement = "tool"
	OnSettings   Agreement = "settings"
	OnToolchains Agreement = "toolchains"
)

// CheckCoverage checks that the manifests of one sharded run cover it:
// every shard agrees with the others on n, the commits, the tool, the
// settings and the Go toolchains; every shard number of 1..n has one
// manifest, and each is Complete; every shard discovered the units the
// others did and measured only units it listed; no unit was measured by
// more than one shard or by none.
func CheckCoverage(manifests []Manifest) Coverage {
	var c Coverage
	if len(manifests) == 0 {
		c.Problems = []Problem{{Code: NoShards}}
		return c
	}
	ms := slices.Clone(manifests)
	slices.SortStableFunc(ms, func(a, b Manifest) int {
		if a.Shard.Index != b.Shard.Index {
			return a.Shard.Index - b.Shard.Index
		}
		return a.Shard.Count - b.Shard.Count
	})

	// Agreement on the run.
	n := 0
	for _, m := range ms {
		n = max(n, m.Shard.Count)
	}
	for _, on := range []Agreement{OnCount, OnCommits, OnTool, OnSettings, OnToolchains} {
		var groups []Group
		at := map[string]int{}
		for _, m := range ms {
			k := agreed(on, m)
			i, ok := at[k]
			if !ok {
				i = len(groups)
				at[k] = i
				groups = append(groups, Group{Manifest: m})
			}
			groups[i].Shards = append(groups[i].Shards, m.Shard.String())
		}
		if len(groups) > 1 {
			c.Problems = append(c.Problems, Problem{Code: Disagree, On: on, Groups: groups})
		}
	}

	// Every shard number once.
	seen := map[int]int{}
	for _, m := range ms {
		seen[m.Shard.Index]++
	}
	missingShard := false
	for i := 1; i <= n; i++ {
		switch k := seen[i]; {
		case k == 0:
			missingShard = true
			c.Problems = append(c.Problems, Problem{Code: Missing, Shard: Spec{i, n}})
		case k > 1:
			c.Problems = append(c.Problems, Problem{Code: Twice, Shard: Spec{i, n}, Count: k})
		}
	}
	for _, m := range ms {
		if !m.Complete {
			c.Problems = append(c.Problems, Problem{Code: Incomplete, Shard: m.Shard, Count: m.Rounds})
		}
	}

	// The units.
	all := map[string]bool{}
	for _, m := range ms {
		for _, id := range m.All {
			all[id] = true
		}
	}
	measured := map[string][]string{} // unit ID -> shards that measured it
	for _, m := range ms {
		listed := map[string]bool{}
		for _, id := range m.All {
			listed[id] = true
		}
		var lacks, unlisted []string
		for id := range all {
			if !listed[id] {
				lacks = append(lacks, id)
			}
		}
		for _, id := range m.Assigned {
			if !listed[id] {
				unlisted = append(unlisted, id)
			}
			measured[id] = append(measured[id], m.Shard.String())
		}
		if len(lacks) > 0 {
			c.Problems = append(c.Problems, Problem{Code: Lacks, Shard: m.Shard, Units: sortedCopy(lacks), Of: len(all)})
		}
		if len(unlisted) > 0 {
			c.Problems = append(c.Problems, Problem{Code: Unlisted, Shard: m.Shard, Units: sortedCopy(unlisted)})
		}
	}
	var shared []Group
	for id, shards := range measured {
		if len(shards) > 1 {
			shared = append(shared, Group{Unit: id, Shards: shards})
		}
	}
	if len(shared) > 0 {
		slices.SortFunc(shared, func(a, b Group) int { return strings.Compare(a.Unit, b.Unit) })
		c.Problems = append(c.Problems, Problem{Code: Shared, Shared: shared})
	}
	for id := range all {
		if len(measured[id]) == 0 {
			c.Missing = append(c.Missing, id)
		}
	}
	slices.Sort(c.Missing)
	if len(c.Missing) > 0 && !missingShard {
		c.Problems = append(c.Problems, Problem{Code: Unmeasured, Units: c.Missing})
	}
	return c
}

// agreed is what m says about on, for comparing shards.
func agreed(on Agreement, m Manifest) string {
	switch on {
	case OnCount:
		return strconv.Itoa(m.Shard.Count)
	case OnCommits:
		return m.BaseSHA + " " + m.HeadSHA
	case OnTool:
		return m.Tool
	case OnSettings:
		return m.Settings
	}
	return m.BaseGo + "\x00" + m.HeadGo
}

func sortedCopy(s []string) []string {
	out := append([]string{}, s...)
	slices.Sort(out)
	return out
}
