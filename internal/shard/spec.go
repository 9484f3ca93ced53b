package shard

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxShards bounds n in i/n (GitHub Actions runs at most 256 jobs of one
// matrix).
const MaxShards = 1024

// Spec is one shard of n: Index in 1..Count. The zero Spec means no
// sharding.
type Spec struct {
	Index int // 1-based
	Count int // n, the number of shards
}

// IsZero reports whether s is the zero Spec (no sharding).
func (s Spec) IsZero() bool { return s == Spec{} }

// String returns "i/n", or "" for the zero Spec.
func (s Spec) String() string {
	if s.IsZero() {
		return ""
	}
	return strconv.Itoa(s.Index) + "/" + strconv.Itoa(s.Count)
}

// ParseError is an invalid --shard value. Its message names the flag:
//
//	--shard "3/2": shard index must be between 1 and 2
//
// A caller reading the value from elsewhere (the action's shard input)
// formats Value and Reason itself.
type ParseError struct {
	Value  string
	Reason string
}

func (e *ParseError) Error() string { return fmt.Sprintf("--shard %q: %s", e.Value, e.Reason) }

// Parse parses "i/n": shard i of n, 1 ≤ i ≤ n ≤ MaxShards, both plain
// decimal numbers. Surrounding space is ignored. Errors are *ParseError.
func Parse(s string) (Spec, error) {
	fail := func(format string, args ...any) (Spec, error) {
		return Spec{}, &ParseError{Value: s, Reason: fmt.Sprintf(format, args...)}
	}
	is, ns, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return fail("want i/n, the shard's number and the number of shards, such as 1/4")
	}
	n, ok := number(ns)
	switch {
	case !ok:
		return fail("the number of shards %q is not a number", ns)
	case n < 1:
		return fail("the number of shards must be at least 1")
	case n > MaxShards:
		return fail("the number of shards must be at most %d", MaxShards)
	}
	i, ok := number(is)
	if !ok {
		return fail("shard index %q is not a number", is)
	}
	if i < 1 || i > n {
		return fail("shard index must be between 1 and %d", n)
	}
	return Spec{Index: i, Count: n}, nil
}

// number parses a plain decimal number: digits only, no sign.
func number(s string) (int, bool) {
	if s == "" || len(s) > 18 || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// MarshalText encodes s as "i/n" ("" for the zero Spec).
func (s Spec) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText decodes "i/n"; "" is the zero Spec.
func (s *Spec) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*s = Spec{}
		return nil
	}
	v, err := Parse(string(b))
	if err != nil {
		return fmt.Errorf("shard %q: %s", b, err.(*ParseError).Reason)
	}
	*s = v
	return nil
}
