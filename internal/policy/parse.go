package policy

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// The keys of the file, for the messages of unknown keys.
var (
	topKeys   = []string{"version", "threshold", "alpha", "fail-on", "allocs", "bytes", "instructions", "rules", "units", "trusted-bots"}
	unitKeys  = []string{"match", "direction", "threshold", "ignore", "reason"}
	ruleKeys  = []string{"match", "threshold", "allocs", "bytes", "instructions", "fail-on", "ignore", "required", "reason"}
	limitKeys = []string{"max-increase"}
	instrKeys = []string{"threshold"}
)

// Parse reads a policy file. name is used in errors ("NAME:LINE: message")
// and kept in Policy.File; data is the file's content. The error, when not
// nil, is an [ErrorList]. A file beyond MaxSize, MaxDepth or MaxTokens is
// refused before the YAML parser reads it.
func Parse(name string, data []byte) (*Policy, error) {
	p := &parseState{file: name}
	pol := &Policy{File: name}
	data = []byte(strings.TrimPrefix(string(data), "\ufeff"))
	toks, bad := checkBounds(name, data)
	if bad != nil {
		return nil, ErrorList{bad}
	}
	f, err := parser.Parse(toks, 0)
	if err != nil {
		var ye yaml.Error
		if errors.As(err, &ye) && ye.GetToken() != nil {
			pos := ye.GetToken().Position
			p.errs = append(p.errs, &Error{File: name, Line: pos.Line, Column: pos.Column, Msg: "YAML: " + ye.GetMessage()})
		} else {
			p.errs = append(p.errs, &Error{File: name, Msg: "YAML: " + err.Error()})
		}
		return nil, p.errs
	}
	var body ast.Node
	for _, d := range f.Docs {
		if d == nil || d.Body == nil {
			continue
		}
		if body != nil {
			p.errorf(d.Body, "a second YAML document: the policy is one document")
			break
		}
		body = d.Body
	}
	p.collectAnchors(f)
	if body != nil {
		p.top(pol, body)
	}
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return pol, nil
}

type parseState struct {
	file    string
	errs    ErrorList
	anchors map[string][]*ast.AnchorNode
}

type pair struct {
	key   string
	kNode ast.Node
	value ast.Node
}

func line(n ast.Node) (int, int) {
	if n == nil || n.GetToken() == nil {
		return 0, 0
	}
	pos := n.GetToken().Position
	return pos.Line, pos.Column
}

func (p *parseState) errorf(n ast.Node, format string, args ...any) {
	l, c := line(n)
	p.errs = append(p.errs, &Error{File: p.file, Line: l, Column: c, Msg: fmt.Sprintf(format, args...)})
}

// collectAnchors records every anchor, so that an alias can be resolved to
// the last anchor of its name before it.
func (p *parseState) collectAnchors(f *ast.File) {
	p.anchors = map[string][]*ast.AnchorNode{}
	for _, d := range f.Docs {
		if d == nil || d.Body == nil {
			continue
		}
		ast.Walk(visitor(func(n ast.Node) {
			if a, ok := n.(*ast.AnchorNode); ok && a.Name != nil {
				name := a.Name.GetToken().Value
				p.anchors[name] = append(p.anchors[name], a)
			}
		}), d.Body)
	}
}

type visitor func(ast.Node)

func (v visitor) Visit(n ast.Node) ast.Visitor {
	v(n)
	return v
}

func before(a, b *token.Position) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Column < b.Column
}

// resolve strips tags and anchors and follows aliases. It returns nil (after
// reporting) for an alias it cannot resolve.
func (p *parseState) resolve(n ast.Node) ast.Node {
	for {
		switch x := n.(type) {
		case *ast.TagNode:
			n = x.Value
		case *ast.AnchorNode:
			n = x.Value
		case *ast.AliasNode:
			name := x.Value.GetToken().Value
			var target *ast.AnchorNode
			for _, a := range p.anchors[name] {
				if before(a.GetToken().Position, x.GetToken().Position) {
					target = a
				}
			}
			if target == nil {
				p.errorf(x, "alias *%s: no anchor &%s before it", name, name)
				return nil
			}
			n = target.Value
		default:
			return n
		}
	}
}

func describe(n ast.Node) string {
	switch n.(type) {
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	case *ast.NullNode:
		return "nothing"
	case *ast.BoolNode:
		return "a boolean"
	case *ast.IntegerNode, *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return "a number"
	case *ast.StringNode, *ast.LiteralNode:
		return "a string"
	}
	return "a " + n.Type().String()
}

// mapping returns the key/value pairs of a mapping node, or reports what
// was found instead (what names the thing, e.g. "the policy").
func (p *parseState) mapping(n ast.Node, what string) ([]pair, bool) {
	var values []*ast.MappingValueNode
	switch x := n.(type) {
	case *ast.MappingNode:
		values = x.Values
	case *ast.MappingValueNode:
		values = []*ast.MappingValueNode{x}
	default:
		p.errorf(n, "%s: want a mapping (key: value lines), got %s", what, describe(n))
		return nil, false
	}
	var out []pair
	for _, v := range values {
		if _, ok := v.Key.(*ast.MergeKeyNode); ok {
			p.errorf(v.Key, "merge keys (<<) are not supported")
			continue
		}
		k, ok := p.resolve(v.Key).(*ast.StringNode)
		if !ok {
			p.errorf(v.Key, "%s: want a key name, got %s", what, describe(v.Key))
			continue
		}
		out = append(out, pair{key: k.Value, kNode: v.Key, value: v.Value})
	}
	return out, true
}

// scalar returns the text of a scalar node; ok is false (after reporting)
// for a null, a list or a mapping.
func (p *parseState) scalar(key string, n ast.Node) (string, bool) {
	switch x := n.(type) {
	case *ast.StringNode:
		return x.Value, true
	case *ast.LiteralNode:
		return x.Value.Value, true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		return x.GetToken().Value, true
	case *ast.NullNode:
		p.errorf(n, "%s: missing value", key)
	default:
		p.errorf(n, "%s: want a single value, got %s", key, describe(n))
	}
	return "", false
}

func (p *parseState) boolean(key string, n ast.Node) (bool, bool) {
	b, ok := n.(*ast.BoolNode)
	if !ok {
		if _, isNull := n.(*ast.NullNode); isNull {
			p.errorf(n, "%s: missing value: want true or false", key)
		} else {
			p.errorf(n, "%s: want true or false, got %s", key, describe(n))
		}
		return false, false
	}
	return b.Value, true
}

func unknownKey(key string, known []string) string {
	if near := Suggest(key, known); near != "" {
		return fmt.Sprintf("unknown key %q: did you mean %s? (want %s)", key, near, strings.Join(known, ", "))
	}
	return fmt.Sprintf("unknown key %q: want %s", key, strings.Join(known, ", "))
}

func (p *parseState) top(pol *Policy, n ast.Node) {
	n = p.resolve(n)
	if n == nil {
		return
	}
	if _, ok := n.(*ast.NullNode); ok {
		return
	}
	pairs, ok := p.mapping(n, "the policy")
	if !ok {
		return
	}
	for _, kv := range pairs {
		v := p.resolve(kv.value)
		if v == nil {
			continue
		}
		switch kv.key {
		case "version":
			if s, ok := p.scalar(kv.key, v); ok {
				ver, err := strconv.Atoi(s)
				switch {
				case err != nil:
					p.errorf(v, "version: want %d, got %q", Version, s)
				case ver != Version:
					p.errorf(v, "version: %d is not supported: this benchgate reads version %d", ver, Version)
				default:
					pol.Version = ver
				}
			}
		case "threshold":
			p.percent(kv.key, v, &pol.Threshold)
		case "alpha":
			if s, ok := p.scalar(kv.key, v); ok {
				a, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
				if err != nil || !(a > 0 && a < 1) {
					p.errorf(v, "alpha: want a number in (0, 1) such as 0.01, got %q", s)
				} else {
					l, _ := line(v)
					pol.Alpha = Setting[float64]{Value: a, Set: true, Line: l}
				}
			}
		case "fail-on":
			p.failOn(kv.key, v, &pol.FailOn)
		case "allocs", "bytes":
			dst := &pol.Allocs
			if kv.key == "bytes" {
				dst = &pol.Bytes
			}
			p.limitBlock(kv.key, v, dst)
		case "instructions":
			p.instrBlock(kv.key, v, &pol.Instructions)
		case "rules":
			p.rules(pol, v)
		case "units":
			p.units(pol, v)
		case "trusted-bots":
			p.trustedBots(pol, v)
		case "match", "ignore", "required", "reason":
			p.errorf(kv.kNode, "%s belongs in a rule: a list item under rules:", kv.key)
		default:
			p.errorf(kv.kNode, "%s", unknownKey(kv.key, topKeys))
		}
	}
}

// parsePercent reads a percentage like --threshold: "5%" or "5" is 0.05.
func parsePercent(s string) (float64, error) {
	s = strings.TrimSpace(s)
	num, pct := strings.CutSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("want a percentage such as 5%%, got %q", s)
	}
	if v < 0 {
		return 0, fmt.Errorf("%q: must not be negative", s)
	}
	if !pct && v > 0 && v < 1 {
		return 0, fmt.Errorf("%q is ambiguous: write %g%% for %g percent, or %g%% for a fraction of %g", s, v, v, v*100, v)
	}
	if v >= 1000 {
		return 0, fmt.Errorf("%q: must be below 1000%%", s)
	}
	return v / 100, nil
}

func (p *parseState) percent(key string, v ast.Node, dst *Setting[float64]) {
	s, ok := p.scalar(key, v)
	if !ok {
		return
	}
	f, err := parsePercent(s)
	if err != nil {
		p.errorf(v, "%s: %v", key, err)
		return
	}
	l, _ := line(v)
	*dst = Setting[float64]{Value: f, Set: true, Line: l}
}

// parseLimit reads a max-increase: an amount ("1", "64") or a percentage
// ("5%").
func parseLimit(s string) (Limit, error) {
	t := strings.TrimSpace(s)
	num, pct := strings.CutSuffix(t, "%")
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return Limit{}, fmt.Errorf("want a number in the metric's unit such as 1, or a percentage of base such as 5%%, got %q", s)
	}
	if v < 0 {
		return Limit{}, fmt.Errorf("%q: must not be negative", s)
	}
	if pct {
		return Limit{Relative: true, Fraction: v / 100}, nil
	}
	return Limit{Amount: v}, nil
}

func (p *parseState) limitBlock(key string, v ast.Node, dst *Setting[Limit]) {
	pairs, ok := p.mapping(v, key)
	if !ok {
		return
	}
	for _, kv := range pairs {
		if kv.key != "max-increase" {
			p.errorf(kv.kNode, "%s: %s", key, unknownKey(kv.key, limitKeys))
			continue
		}
		w := p.resolve(kv.value)
		if w == nil {
			continue
		}
		s, ok := p.scalar(key+".max-increase", w)
		if !ok {
			continue
		}
		lim, err := parseLimit(s)
		if err != nil {
			p.errorf(w, "%s.max-increase: %v", key, err)
			continue
		}
		l, _ := line(w)
		*dst = Setting[Limit]{Value: lim, Set: true, Line: l}
	}
	if len(pairs) == 0 {
		p.errorf(v, "%s: empty: want max-increase", key)
	}
}

func (p *parseState) instrBlock(key string, v ast.Node, dst *Setting[float64]) {
	pairs, ok := p.mapping(v, key)
	if !ok {
		return
	}
	for _, kv := range pairs {
		if kv.key != "threshold" {
			p.errorf(kv.kNode, "%s: %s", key, unknownKey(kv.key, instrKeys))
			continue
		}
		if w := p.resolve(kv.value); w != nil {
			p.percent(key+".threshold", w, dst)
		}
	}
	if len(pairs) == 0 {
		p.errorf(v, "%s: empty: want threshold", key)
	}
}

func (p *parseState) failOn(key string, v ast.Node, dst *Setting[[]string]) {
	var words []string
	var nodes []ast.Node
	if seq, ok := v.(*ast.SequenceNode); ok {
		for _, e := range seq.Values {
			e = p.resolve(e)
			if e == nil {
				return
			}
			s, ok := p.scalar(key, e)
			if !ok {
				return
			}
			words = append(words, strings.TrimSpace(s))
			nodes = append(nodes, e)
		}
	} else {
		s, ok := p.scalar(key, v)
		if !ok {
			return
		}
		for _, w := range strings.Split(s, ",") {
			words = append(words, strings.TrimSpace(w))
			nodes = append(nodes, v)
		}
	}
	list := []string{}
	for i, w := range words {
		switch {
		case w == "none" && len(words) == 1:
		case w == "none":
			p.errorf(nodes[i], "%s: none cannot be combined with other kinds", key)
			return
		case slices.Contains(FailOnKinds, w):
			if !slices.Contains(list, w) {
				list = append(list, w)
			}
		default:
			p.errorf(nodes[i], "%s: unknown kind %q: want %s, or none", key, w, strings.Join(FailOnKinds, ", "))
			return
		}
	}
	l, _ := line(v)
	*dst = Setting[[]string]{Value: list, Set: true, Line: l}
}

func (p *parseState) rules(pol *Policy, v ast.Node) {
	byMatch := map[string]int{}
	for _, n := range p.list(v, "rules", "rules") {
		r, ok := p.rule(n)
		if !ok {
			continue
		}
		if first, dup := byMatch[r.Match]; dup {
			p.errs = append(p.errs, &Error{File: p.file, Line: r.matchLine, Msg: fmt.Sprintf("match %q repeats the rule of line %d, which always applies first", r.Match, first)})
			continue
		}
		byMatch[r.Match] = r.Line
		r.Index = len(pol.Rules)
		pol.Rules = append(pol.Rules, r.Rule)
	}
}

// list returns the entries of the list v under key (rules:, units:),
// each resolved (anchors and aliases): none when v is empty, and none
// with an error when v is not a list (want names its entries).
func (p *parseState) list(v ast.Node, key, want string) []ast.Node {
	if _, ok := v.(*ast.NullNode); ok {
		return nil
	}
	seq, ok := v.(*ast.SequenceNode)
	if !ok {
		p.errorf(v, "%s: want a list of %s (lines starting with -), got %s", key, want, describe(v))
		return nil
	}
	var out []ast.Node
	for _, item := range seq.Values {
		if n := p.resolve(item); n != nil {
			out = append(out, n)
		}
	}
	return out
}

// loginPattern matches a GitHub login or an app's bot account,
// "NAME[bot]".
var loginPattern = regexp.MustCompile(`^[A-Za-z0-9](?:-?[A-Za-z0-9]){0,38}(?:\[bot\])?$`)

// trustedBots reads trusted-bots: a list of logins.
func (p *parseState) trustedBots(pol *Policy, v ast.Node) {
	for _, n := range p.list(v, "trusted-bots", "logins") {
		s, ok := p.scalar("trusted-bots", n)
		if !ok {
			continue
		}
		if s = strings.TrimSpace(s); !loginPattern.MatchString(s) {
			p.errorf(n, "trusted-bots: %q is not a GitHub login (an app's bot is NAME[bot])", s)
			continue
		}
		pol.TrustedBots = append(pol.TrustedBots, s)
	}
}

type parsedRule struct {
	Rule
	matchLine int
}

func (p *parseState) rule(n ast.Node) (parsedRule, bool) {
	pairs, ok := p.mapping(n, "rule")
	if !ok {
		return parsedRule{}, false
	}
	var r parsedRule
	r.Line, _ = line(n)
	if len(pairs) > 0 {
		r.Line, _ = line(pairs[0].kNode)
	}
	errs := len(p.errs)
	var matchSeen bool
	var settings []pair // keys that set something, for the ignore check
	for _, kv := range pairs {
		v := p.resolve(kv.value)
		if v == nil {
			continue
		}
		switch kv.key {
		case "match":
			matchSeen = true
			s, ok := p.scalar(kv.key, v)
			if !ok {
				break
			}
			r.matchLine, _ = line(v)
			if s == "" {
				p.errorf(v, "match: empty pattern: write '.' to match every benchmark")
				break
			}
			re, err := regexp.Compile(s)
			if err != nil {
				p.errorf(v, "match: invalid regular expression %q: %v", s, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
				break
			}
			r.Match, r.re = s, re
		case "threshold":
			p.percent(kv.key, v, &r.Threshold)
			settings = append(settings, kv)
		case "allocs":
			p.limitBlock(kv.key, v, &r.Allocs)
			settings = append(settings, kv)
		case "bytes":
			p.limitBlock(kv.key, v, &r.Bytes)
			settings = append(settings, kv)
		case "instructions":
			p.instrBlock(kv.key, v, &r.Instructions)
			settings = append(settings, kv)
		case "fail-on":
			p.failOn(kv.key, v, &r.FailOn)
			settings = append(settings, kv)
		case "ignore":
			r.Ignore, _ = p.boolean(kv.key, v)
		case "required":
			r.Required, _ = p.boolean(kv.key, v)
			if r.Required {
				settings = append(settings, kv)
			}
		case "reason":
			if s, ok := p.scalar(kv.key, v); ok {
				r.Reason = strings.TrimSpace(s)
			}
		case "alpha":
			p.errorf(kv.kNode, "alpha is suite-wide (the correction spans every benchmark): set it at the top level, not in a rule")
		case "version", "rules":
			p.errorf(kv.kNode, "%s is a top-level key, not a rule's", kv.key)
		default:
			p.errorf(kv.kNode, "rule: %s", unknownKey(kv.key, ruleKeys))
		}
	}
	if !matchSeen {
		p.errorf(n, "rule has no match: every rule needs a match regexp")
	}
	if r.Ignore {
		for _, kv := range settings {
			p.errorf(kv.kNode, "%s has no effect: the rule has ignore: true, and an ignored benchmark is not run", kv.key)
		}
	}
	r.Threshold.FromRule = r.Threshold.Set
	r.Allocs.FromRule = r.Allocs.Set
	r.Bytes.FromRule = r.Bytes.Set
	r.Instructions.FromRule = r.Instructions.Set
	r.FailOn.FromRule = r.FailOn.Set
	return r, len(p.errs) == errs
}

// units reads the units list: entries {match, direction, threshold,
// ignore, reason} for custom metrics.
func (p *parseState) units(pol *Policy, v ast.Node) {
	byMatch := map[string]int{}
	for _, n := range p.list(v, "units", "entries") {
		u, ok := p.unit(n)
		if !ok {
			continue
		}
		if first, dup := byMatch[u.Match]; dup {
			p.errorf(n, "units: match %q repeats the entry of line %d, which always applies first", u.Match, first)
			continue
		}
		byMatch[u.Match] = u.Line
		u.Index = len(pol.Units)
		pol.Units = append(pol.Units, u)
	}
}

// builtinUnits are judged by their own rules; a units entry never applies
// to them.
var builtinUnits = []string{"sec/op", "allocs/op", "B/op", "instructions/op"}

func (p *parseState) unit(n ast.Node) (UnitRule, bool) {
	pairs, ok := p.mapping(n, "units entry")
	if !ok {
		return UnitRule{}, false
	}
	u := UnitRule{}
	u.Line, _ = line(n)
	if len(pairs) > 0 {
		u.Line, _ = line(pairs[0].kNode)
	}
	errs := len(p.errs)
	var matchSeen bool
	var settings []pair
	for _, kv := range pairs {
		v := p.resolve(kv.value)
		if v == nil {
			continue
		}
		switch kv.key {
		case "match":
			matchSeen = true
			s, ok := p.scalar(kv.key, v)
			if !ok {
				break
			}
			if s == "" {
				p.errorf(v, "units: match: empty pattern: write '.*' to match every custom unit")
				break
			}
			re, err := regexp.Compile("^(?:" + s + ")$")
			if err != nil {
				p.errorf(v, "units: match: invalid regular expression %q: %v", s, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
				break
			}
			for _, b := range builtinUnits {
				if re.MatchString(b) {
					p.errorf(v, "units: match %q matches %s, which has its own rules: a units entry is for custom metrics", s, b)
				}
			}
			u.Match, u.re = s, re
		case "direction":
			s, ok := p.scalar(kv.key, v)
			if !ok {
				break
			}
			if s = strings.TrimSpace(s); s != Higher && s != Lower {
				p.errorf(v, "units: direction: want higher or lower, got %q", s)
				break
			}
			u.Direction = s
			settings = append(settings, kv)
		case "threshold":
			p.percent("units: threshold", v, &u.Threshold)
			u.Threshold.FromRule = u.Threshold.Set
			settings = append(settings, kv)
		case "ignore":
			u.Ignore, _ = p.boolean(kv.key, v)
		case "reason":
			if s, ok := p.scalar(kv.key, v); ok {
				u.Reason = strings.TrimSpace(s)
			}
		default:
			p.errorf(kv.kNode, "units entry: %s", unknownKey(kv.key, unitKeys))
		}
	}
	if !matchSeen {
		p.errorf(n, "units entry has no match: every entry needs a match regexp over the unit")
	}
	if u.Ignore {
		for _, kv := range settings {
			p.errorf(kv.kNode, "%s has no effect: the entry has ignore: true", kv.key)
		}
	}
	return u, len(p.errs) == errs
}
