package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Reading a large result as it arrives (docs/decisions.md D54): a
// state::list of a large scope is one frame of hundreds of megabytes,
// which the client hands over one array element at a time instead of
// holding it whole. ResultStart finds where the result array begins in
// the first bytes of a frame; an ElementReader then splits the array as
// it is read, checking every element as strictly as Decode checks a
// frame.

// ResultStart reads the first bytes of an invocationresult frame up to
// its "result" member: invocationID is the frame's invocation_id, and at
// the offset of the '[' that opens the result. ok is false when head is
// not such a frame, when its result is not an array, when "type" or
// "invocation_id" do not come before "result" (then the frame is read
// whole), or when head ends before the result does begin.
func ResultStart(head []byte) (invocationID string, at int, ok bool) {
	i := skipSpace(head, 0)
	if i >= len(head) || head[i] != '{' {
		return "", 0, false
	}
	typ := ""
	for i = skipSpace(head, i+1); ; {
		if i >= len(head) || head[i] != '"' {
			return "", 0, false
		}
		kend, plain, err := skipString(head, i)
		if err != nil {
			return "", 0, false
		}
		key, err := stringValue(head[i:kend], plain)
		if err != nil {
			return "", 0, false
		}
		i = skipSpace(head, kend)
		if i >= len(head) || head[i] != ':' {
			return "", 0, false
		}
		vstart := skipSpace(head, i+1)
		if key == "result" {
			ok = typ == TypeInvocationResult && invocationID != "" && vstart < len(head) && head[vstart] == '['
			return invocationID, vstart, ok
		}
		vend, err := skipValue(head, vstart, 1)
		if err != nil {
			return "", 0, false
		}
		if key == "type" || key == "invocation_id" {
			if head[vstart] != '"' {
				return "", 0, false
			}
			_, plain, _ := skipString(head, vstart)
			s, err := stringValue(head[vstart:vend], plain)
			if err != nil {
				return "", 0, false
			}
			if key == "type" {
				typ = s
			} else {
				invocationID = s
			}
		}
		i = skipSpace(head, vend)
		if i >= len(head) || head[i] != ',' {
			return "", 0, false
		}
		i = skipSpace(head, i+1)
	}
}

// ElementReader splits a JSON array into its elements as it reads it.
// Memory is bounded by the largest element, not by the array.
type ElementReader struct {
	r     io.Reader
	buf   []byte
	pos   int // next byte to scan in buf
	begun bool
	done  bool
	n     int   // elements returned
	err   error // the reader's, once it has none left to give
}

// readChunk is how much an ElementReader asks its reader for at a time.
const readChunk = 64 << 10

// NewElementReader reads the array that starts at the first non-space
// byte of r.
func NewElementReader(r io.Reader) *ElementReader {
	return &ElementReader{r: r, buf: make([]byte, 0, readChunk)}
}

// ErrElement wraps every error of an array that is not valid JSON, as
// opposed to an error of the reader underneath.
var ErrElement = errors.New("invalid array")

// Next returns the next element, a copy its caller owns, or io.EOF
// after the array's closing ']'. An element that is not valid JSON, or an
// array cut short, is an error wrapping ErrElement; the reader's own
// errors are returned as they are.
func (e *ElementReader) Next() (json.RawMessage, error) {
	if e.done {
		return nil, io.EOF
	}
	if !e.begun {
		c, err := e.nextNonSpace()
		if err != nil {
			return nil, err
		}
		if c != '[' {
			return nil, fmt.Errorf("%w: expected '[', got %q", ErrElement, c)
		}
		e.pos++
		e.begun = true
	}
	c, err := e.nextNonSpace()
	if err != nil {
		return nil, err
	}
	if c == ']' && e.n == 0 {
		e.pos++
		e.done = true
		return nil, io.EOF
	}
	// Scan one value: it ends at a ',' or ']' outside strings and nesting.
	var sp splitter
	start := e.pos
	for i := start; ; i++ {
		if i == len(e.buf) {
			var more bool
			if i, start, more = e.fill(i, start); !more {
				return nil, e.cut()
			}
		}
		end, closing := sp.step(e.buf[i])
		if end {
			e.done = closing
			el := trimSpace(e.buf[start:i])
			e.pos = i + 1
			if !Valid(el) {
				return nil, fmt.Errorf("%w: element %d is not valid JSON", ErrElement, e.n)
			}
			e.n++
			return json.RawMessage(append([]byte(nil), el...)), nil
		}
		if sp.depth < 0 {
			return nil, fmt.Errorf("%w: element %d is not valid JSON", ErrElement, e.n)
		}
	}
}

// nextNonSpace skips whitespace and returns the byte at pos, reading
// more as needed.
func (e *ElementReader) nextNonSpace() (byte, error) {
	for {
		if e.pos = skipSpace(e.buf, e.pos); e.pos < len(e.buf) {
			return e.buf[e.pos], nil
		}
		if _, _, more := e.fill(e.pos, e.pos); !more {
			return 0, e.cut()
		}
	}
}

// fill reads more after buf[:i], keeping buf[start:] (the element being
// scanned) and dropping what came before; it returns i and start in the
// moved buffer, and false at the end of the input or on an error.
func (e *ElementReader) fill(i, start int) (int, int, bool) {
	if start > 0 {
		n := copy(e.buf, e.buf[start:])
		e.buf = e.buf[:n]
		i, e.pos, start = i-start, e.pos-start, 0
	}
	if cap(e.buf)-len(e.buf) < readChunk/2 {
		grown := make([]byte, len(e.buf), 2*cap(e.buf))
		copy(grown, e.buf)
		e.buf = grown
	}
	n, err := e.r.Read(e.buf[len(e.buf):cap(e.buf)])
	e.buf = e.buf[:len(e.buf)+n]
	if n == 0 && err != nil {
		e.err = err
		return i, start, false
	}
	return i, start, true
}

// cut is the error of an array that could not be read to its end: the
// reader's error, or one wrapping ErrElement when the input simply ended.
func (e *ElementReader) cut() error {
	if e.err == nil || errors.Is(e.err, io.EOF) {
		return fmt.Errorf("%w: the input ends before the array does (%d elements read): %w", ErrElement, e.n, io.ErrUnexpectedEOF)
	}
	return e.err
}
