package shard

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/benchgate/benchgate/internal/english"
	"github.com/benchgate/benchgate/internal/gitrev"
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

// CheckCoverage checks that the manifests of one sharded run cover it:
// missing are the unit IDs that some shard discovered and no shard
// measured, sorted; problems are one-line descriptions of everything else
// that makes the merged result incomplete or inconsistent, in a fixed order:
//
//   - no manifests at all;
//   - shards that disagree on n, on the commits, on the tool, on the settings
//     or on the Go toolchains;
//   - a shard number of 1..n with no manifest (its job failed, or its
//     artifact was not downloaded), or with more than one;
//   - a shard that is not Complete (cancelled, or stopped by an error);
//   - a shard that did not discover units the others did, or measured
//     units it did not list;
//   - units measured by more than one shard, and units measured by none
//     although every shard reported: the shards computed different
//     partitions.
//
// The merge must fail when either is non-empty: a missing or failed shard
// never passes silently.
func CheckCoverage(manifests []Manifest) (missing []string, problems []string) {
	if len(manifests) == 0 {
		return nil, []string{"no shard results to merge"}
	}
	ms := slices.Clone(manifests)
	slices.SortStableFunc(ms, func(a, b Manifest) int {
		if a.Shard.Index != b.Shard.Index {
			return a.Shard.Index - b.Shard.Index
		}
		return a.Shard.Count - b.Shard.Count
	})
	name := func(m Manifest) string { return "shard " + m.Shard.String() }

	// Agreement on the run.
	n := 0
	for _, m := range ms {
		n = max(n, m.Shard.Count)
	}
	disagree := func(what string, key func(Manifest) string) {
		groups := map[string][]string{}
		var keys []string
		for _, m := range ms {
			k := key(m)
			if _, ok := groups[k]; !ok {
				keys = append(keys, k)
			}
			groups[k] = append(groups[k], m.Shard.String())
		}
		if len(keys) < 2 {
			return
		}
		var parts []string
		for _, k := range keys {
			parts = append(parts, strings.Join(groups[k], ", ")+": "+k)
		}
		problems = append(problems, fmt.Sprintf("shards disagree on %s: %s", what, strings.Join(parts, "; ")))
	}
	disagree("the number of shards", func(m Manifest) string { return fmt.Sprintf("n=%d", m.Shard.Count) })
	disagree("the commits", func(m Manifest) string {
		return fmt.Sprintf("base %s, head %s", gitrev.Short(m.BaseSHA), gitrev.Short(m.HeadSHA))
	})
	disagree("the tool", func(m Manifest) string { return fmt.Sprintf("%q", m.Tool) })
	disagree("the settings", func(m Manifest) string { return fmt.Sprintf("%q", m.Settings) })
	disagree("the Go toolchains", func(m Manifest) string { return fmt.Sprintf("base %q, head %q", m.BaseGo, m.HeadGo) })

	// Every shard number once.
	seen := map[int]int{}
	for _, m := range ms {
		seen[m.Shard.Index]++
	}
	missingShard := false
	for i := 1; i <= n; i++ {
		switch c := seen[i]; {
		case c == 0:
			missingShard = true
			problems = append(problems, fmt.Sprintf("shard %d/%d is missing: no result for it (its job failed or was cancelled, or its artifact was not downloaded)", i, n))
		case c > 1:
			problems = append(problems, fmt.Sprintf("shard %d/%d appears %d times", i, n, c))
		}
	}
	for _, m := range ms {
		if !m.Complete {
			problems = append(problems, fmt.Sprintf("%s is incomplete: it stopped after %s (cancelled, or stopped by an error)", name(m), english.Plural(m.Rounds, "round", "rounds")))
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
			slices.Sort(lacks)
			problems = append(problems, fmt.Sprintf("%s did not find %d of the %d benchmarks the other shards found (%s): shards must run the same benchmarks; pass --cpu explicitly, and avoid names that depend on the machine",
				name(m), len(lacks), len(all), examples(lacks)))
		}
		if len(unlisted) > 0 {
			slices.Sort(unlisted)
			problems = append(problems, fmt.Sprintf("%s measured %s it did not list as found (%s)", name(m), english.Plural(len(unlisted), "benchmark", "benchmarks"), examples(unlisted)))
		}
	}
	var twice []string
	for id, shards := range measured {
		if len(shards) > 1 {
			twice = append(twice, fmt.Sprintf("%s (%s)", id, strings.Join(shards, ", ")))
		}
	}
	if len(twice) > 0 {
		slices.Sort(twice)
		problems = append(problems, fmt.Sprintf("%s measured by more than one shard (%s): the shards computed different partitions", english.Plural(len(twice), "benchmark was", "benchmarks were"), examples(twice)))
	}
	for id := range all {
		if len(measured[id]) == 0 {
			missing = append(missing, id)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 && !missingShard {
		problems = append(problems, fmt.Sprintf("%s measured by no shard although every shard reported (%s): the shards computed different partitions", english.Plural(len(missing), "benchmark was", "benchmarks were"), examples(missing)))
	}
	return missing, problems
}

// examples names up to three items and counts the rest.
func examples(items []string) string {
	if len(items) <= 3 {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:3], ", ") + fmt.Sprintf(" and %d more", len(items)-3)
}

// count is n with the singular or plural noun.

func sortedCopy(s []string) []string {
	out := append([]string{}, s...)
	slices.Sort(out)
	return out
}
