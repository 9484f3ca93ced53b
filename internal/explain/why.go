package explain

// Why says where one row's change comes from: the allocation sites (an
// allocs/op or B/op row) or the functions (a time or instructions row)
// whose cost per op changed between base and head, from the profiles
// (or counts) of both sides taken after the verdict. Function and file
// names come from the code measured: they are untrusted. A shard keeps
// its explanations in explain.json for merge: the json names are that
// file's format (Go's field names, as it has always been written).
type Why struct {
	Package string `json:"Package"` // the row it explains
	Name    string `json:"Name"`
	Unit    string `json:"Unit"`
	// Explain lists the largest changes: sites in the row's unit per op,
	// or functions' flat and cumulative seconds per op.
	Explain Explanation `json:"Explain"`
	// Changed is how many sites or functions changed in all.
	Changed int `json:"Changed"`
	// Base and Head are, for an allocation row, what the benchmark's
	// sites add up to per op in the row's unit; for a time row, each
	// side's CPU seconds per op in its profiles.
	Base float64 `json:"Base"`
	Head float64 `json:"Head"`
	// Ops are the benchmark ops each side's figures cover (a time row's:
	// Runs runs of Ops/Runs ops).
	Ops  [2]int64 `json:"Ops"`
	Runs int      `json:"Runs"`
	// Notes say where the figures do not add up to the row's (explain's
	// Check), in words.
	Notes []string `json:"Notes"`
	// Command is the go tool pprof command that reproduces the figures
	// (times the ops) from the files kept; "" when they were not kept.
	Command string `json:"Command"`
	// Err says why the row could not be explained; the rest is then
	// empty.
	Err string `json:"Err"`
}
