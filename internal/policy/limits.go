package policy

import (
	"fmt"

	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/token"
)

// The bounds of a policy file (docs/policy.md, "Limits"). The YAML parser
// takes time and memory that grow with the square of the nesting depth
// (16,000 nested [ took 3.7 s and 413 MB; so did 16,000 nested "- "), and
// head's copy of the file, which the change controls, is parsed too (to
// show what it would change). So the depth is bounded before the parser
// sees the file, and so are its size and its number of tokens, which bound
// the work of the lexer and of the parser.
const (
	// MaxDepth is the deepest nesting of lists and mappings, block and
	// flow ([ ], { }) together.
	MaxDepth = 64
	// MaxSize is the largest policy file, in bytes.
	MaxSize = 128 << 10
	// MaxTokens bounds the YAML tokens of a file (keys, values, "-", ":",
	// brackets and commas; comments not counted): about 2,000 rules.
	MaxTokens = 20_000
)

// checkBounds refuses a file beyond the bounds before the parser reads it.
// A quick scan of the bytes catches deep nesting first, so that a file of
// a million brackets is refused in milliseconds; then the file's size;
// then the lexer's tokens (the parser's own input) are counted and their
// nesting measured exactly.
func checkBounds(name string, data []byte) (token.Tokens, *Error) {
	if line := scanDepth(data); line > 0 {
		return nil, &Error{File: name, Line: line, Msg: fmt.Sprintf("nesting deeper than %d levels", MaxDepth)}
	}
	if len(data) > MaxSize {
		return nil, &Error{File: name, Msg: fmt.Sprintf("%d bytes: a policy file is at most %d bytes (%d KiB)", len(data), MaxSize, MaxSize>>10)}
	}
	toks := tokenize(data)
	if e := checkTokens(toks); e != nil {
		e.File = name
		return nil, e
	}
	return toks, nil
}

// columns is the stack of the columns of the enclosing block collections:
// a nested block collection starts at a greater column than its parent,
// and a line at a smaller column closes the collections beyond it.
type columns []int

func (s *columns) enter(col int) {
	for len(*s) > 0 && (*s)[len(*s)-1] > col {
		*s = (*s)[:len(*s)-1]
	}
	if len(*s) == 0 || (*s)[len(*s)-1] < col {
		*s = append(*s, col)
	}
}

// checkTokens measures the nesting of the tokens, as the parser will see
// it, and counts them.
func checkTokens(toks token.Tokens) *Error {
	var block columns
	flow, n := 0, 0
	var prev *token.Token
	for _, tk := range toks {
		if tk.Type == token.CommentType {
			continue
		}
		if n++; n > MaxTokens {
			return &Error{Line: tk.Position.Line, Msg: fmt.Sprintf("too many YAML tokens: a policy file has at most %d (keys, values and punctuation)", MaxTokens)}
		}
		switch tk.Type {
		case token.SequenceStartType, token.MappingStartType:
			flow++
		case token.SequenceEndType, token.MappingEndType:
			flow = max(0, flow-1)
		case token.SequenceEntryType, token.MappingKeyType:
			if flow == 0 {
				block.enter(tk.Position.Column)
			}
		case token.MappingValueType:
			if flow == 0 && prev != nil {
				block.enter(prev.Position.Column) // the key's
			}
		}
		if len(block)+flow > MaxDepth {
			return &Error{Line: tk.Position.Line, Msg: fmt.Sprintf("nesting deeper than %d levels", MaxDepth)}
		}
		prev = tk
	}
	return nil
}

// scanDepth returns the line at which the nesting of data first exceeds
// MaxDepth, or 0, by one pass over the bytes. It knows quoted strings,
// comments and block scalars (| and >), so that brackets in text do not
// count, and counts "-" entries and indentation as block nesting. It is
// quick, not exact: checkTokens has the last word.
func scanDepth(data []byte) int {
	var block columns
	flow := 0
	var quote byte
	scalarIndent := -1 // inside a block scalar: lines indented more are its text
	for i, line := 0, 1; i < len(data); line++ {
		end := i
		for end < len(data) && data[end] != '\n' {
			end++
		}
		text := data[i:end]
		i = end + 1
		indent := 0
		for indent < len(text) && text[indent] == ' ' {
			indent++
		}
		blank := indent == len(text) || text[indent] == '\r'
		if quote == 0 && scalarIndent >= 0 {
			if blank || indent > scalarIndent {
				continue
			}
			scalarIndent = -1
		}
		pos := indent
		if quote == 0 && flow == 0 && !blank && text[indent] != '#' {
			pos = blockLine(&block, text, indent)
			if len(block) > MaxDepth {
				return line
			}
		}
		var exceeded, header bool
		flow, quote, exceeded, header = scanLine(text[pos:], flow, quote, len(block))
		if exceeded {
			return line
		}
		if header && len(block) > 0 {
			scalarIndent = block[len(block)-1]
		}
	}
	return 0
}

// blockLine enters the block collections that a line starts at its
// indentation and at each "- " that follows (a compact nested list, or a
// list item holding a mapping), and returns where the rest begins. It
// stops once the nesting is beyond MaxDepth.
func blockLine(block *columns, text []byte, indent int) int {
	block.enter(indent)
	pos := indent
	for len(*block) <= MaxDepth && pos < len(text) && text[pos] == '-' && (pos+1 == len(text) || text[pos+1] == ' ' || text[pos+1] == '\r') {
		pos++
		for pos < len(text) && text[pos] == ' ' {
			pos++
		}
		if pos < len(text) && text[pos] != '#' && text[pos] != '\r' {
			block.enter(pos)
		}
	}
	return pos
}

// scanLine follows one line's quotes, comments and flow brackets. fresh
// says that a new scalar may start here (a quote opens a quoted string
// only there, as a bracket does outside brackets; elsewhere they are
// part of a plain string). header reports a block scalar's header (| or
// >) ending the line.
func scanLine(text []byte, flow int, quote byte, blockDepth int) (int, byte, bool, bool) {
	fresh := true
	last := -1 // start of the last plain word outside brackets
	for j := 0; j < len(text); j++ {
		c := text[j]
		if quote != 0 {
			switch {
			case quote == '"' && c == '\\':
				j++
			case c == quote && quote == '\'' && j+1 < len(text) && text[j+1] == '\'':
				j++
			case c == quote:
				quote, fresh = 0, false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\r':
			continue
		case '#':
			if fresh || j > 0 && (text[j-1] == ' ' || text[j-1] == '\t') {
				return flow, 0, false, header(text, last, j, flow)
			}
		case '\'', '"':
			if fresh {
				quote = c
				continue
			}
		case '[', '{':
			if fresh || flow > 0 {
				flow, fresh, last = flow+1, true, -1
				if blockDepth+flow > MaxDepth {
					return flow, 0, true, false
				}
				continue
			}
		case ']', '}':
			if flow > 0 {
				flow, fresh, last = flow-1, false, -1
				continue
			}
		case ',':
			if flow > 0 {
				fresh = true
				continue
			}
		case ':':
			if j+1 == len(text) || text[j+1] == ' ' || text[j+1] == '\t' || text[j+1] == '\r' || flow > 0 {
				fresh, last = true, -1
				continue
			}
		}
		if fresh && flow == 0 {
			last = j
		}
		fresh = false
	}
	return flow, quote, false, header(text, last, len(text), flow)
}

// header says whether text[start:end] (trailing blanks aside) is a block
// scalar's header: | or >, with indicators such as |- or >2.
func header(text []byte, start, end, flow int) bool {
	if start < 0 || flow > 0 {
		return false
	}
	for end > start && (text[end-1] == ' ' || text[end-1] == '\t' || text[end-1] == '\r') {
		end--
	}
	if end <= start || text[start] != '|' && text[start] != '>' {
		return false
	}
	for _, c := range text[start+1 : end] {
		if c != '-' && c != '+' && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// tokenize is the lexer of the YAML parser.
func tokenize(data []byte) token.Tokens { return lexer.Tokenize(string(data)) }
