package github

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"io"
	"sync"
)

// A Log keeps text that benchgate does not control (benchmark names,
// failure output, compiler errors) from being run as workflow commands. The
// runner acts on "::name::" at the start of a line and on "##[name]" anywhere
// in one, on standard output and standard error alike; a Log stops that
// with "::stop-commands::TOKEN" (TOKEN random, never printed anywhere else)
// and resumes it, with "::TOKEN::", only around benchgate's own commands.
//
// Give the Log's Text writer as both standard output and standard error, so
// that every line reaches the runner through one stream, in order, and the
// Commands writer to NewActions. Close resumes command processing for the
// steps that follow.
type Log struct {
	mu      sync.Mutex
	w       io.Writer
	token   string
	atStart bool // the last byte written ended a line
	closed  bool
}

// NewLog stops command processing on w and returns the Log that guards it.
func NewLog(w io.Writer) *Log {
	var b [16]byte
	_, _ = rand.Read(b[:])
	l := &Log{w: w, token: "benchgate-" + hex.EncodeToString(b[:]), atStart: true}
	l.write([]byte("::stop-commands::" + l.token + "\n"))
	return l
}

func (l *Log) write(p []byte) {
	if len(p) == 0 {
		return
	}
	_, _ = l.w.Write(p)
	l.atStart = p[len(p)-1] == '\n'
}

// Text returns the writer for everything but commands. Should the text
// contain the token (it cannot know it), the token is broken up.
func (l *Log) Text() io.Writer { return textWriter{l} }

// Commands returns the writer for benchgate's own workflow commands: each
// write is one or more whole command lines, run by the runner.
func (l *Log) Commands() io.Writer { return commandWriter{l} }

// Close resumes command processing; later writes go out unguarded.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		if !l.atStart {
			l.write([]byte("\n"))
		}
		l.write([]byte("::" + l.token + "::\n"))
		l.closed = true
	}
	return nil
}

type textWriter struct{ l *Log }

func (t textWriter) Write(p []byte) (int, error) {
	l := t.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		// The runner compares the token without regard to case.
		if i := indexFold(p, l.token); i >= 0 {
			q := bytes.Clone(p)
			for i >= 0 {
				q = append(q[:i+1], append([]byte("\u200b"), q[i+1:]...)...)
				i = indexFold(q, l.token)
			}
			l.write(q)
			return len(p), nil
		}
	}
	l.write(p)
	return len(p), nil
}

// indexFold finds the ASCII token in p without regard to ASCII case.
func indexFold(p []byte, token string) int {
	for i := 0; i+len(token) <= len(p); i++ {
		j := 0
		for ; j < len(token); j++ {
			c := p[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != token[j] {
				break
			}
		}
		if j == len(token) {
			return i
		}
	}
	return -1
}

type commandWriter struct{ l *Log }

func (c commandWriter) Write(p []byte) (int, error) {
	l := c.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		l.write(p)
		return len(p), nil
	}
	if !l.atStart {
		l.write([]byte("\n"))
	}
	l.write([]byte("::" + l.token + "::\n"))
	l.write(p)
	if !l.atStart {
		l.write([]byte("\n"))
	}
	l.write([]byte("::stop-commands::" + l.token + "\n"))
	return len(p), nil
}
