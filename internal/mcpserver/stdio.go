package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLineBytes bounds one message a client sends over stdio (16 MiB, the
// registry's response budget and the SDK's own line limit).
const MaxLineBytes = 16 << 20

// Stdio is the transport that serves one client over in and out, as MCP's
// stdio transport frames it: one JSON-RPC message per line.
//
// The SDK's stdio connection ends the session at the first line it cannot
// decode, and it knows no method outside the MCP core. So every line
// passes a gate first, and only what the SDK can take reaches it:
//   - a line that is not JSON is answered with the parse error (-32700),
//     one that is JSON but not a JSON-RPC message with invalid request
//     (-32600), a batch with -32600 too (MCP dropped batches in
//     2025-06-18), a line over MaxLineBytes with -32600 naming the limit;
//     the session goes on;
//   - every other message goes to the SDK unchanged.
//
// Errors written here and the SDK's own messages share one lock on out, a
// whole line at a time.
func Stdio(in io.Reader, out io.Writer) mcp.Transport {
	return &stdioTransport{in: in, out: &lineWriter{w: out}}
}

type stdioTransport struct {
	in  io.Reader
	out *lineWriter
}

func (t *stdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	pr, pw := io.Pipe()
	g := &gate{out: t.out, sdk: pw, pr: pr}
	go g.run(t.in)
	return (&mcp.IOTransport{Reader: g, Writer: t.out}).Connect(ctx)
}

// lineWriter serialises whole lines onto w.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close leaves the client's stream open: the process owns it.
func (l *lineWriter) Close() error { return nil }

// writeMessage writes one message as a line.
func (l *lineWriter) writeMessage(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = l.Write(append(b, '\n'))
	return err
}

// gate reads the client's lines and decides where each goes. Its reading
// goroutine ends at the end of the input or once the SDK closes the
// connection (its next line then has nowhere to go); a read of a stdin
// that never ends cannot be interrupted, as with the SDK's own.
type gate struct {
	out *lineWriter
	sdk *io.PipeWriter
	pr  *io.PipeReader

	mu     sync.Mutex
	closed bool
}

// Read and Close make the gate the SDK's input.
func (g *gate) Read(p []byte) (int, error) { return g.pr.Read(p) }

func (g *gate) Close() error {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	return g.pr.Close()
}

func (g *gate) run(in io.Reader) {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, over, err := readLine(r)
		switch {
		case over > 0:
			g.reply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("a message of %d bytes or more is over the limit of %d bytes; nothing was done", over, MaxLineBytes))
		case len(bytes.TrimSpace(line)) > 0:
			if !g.pass(line) {
				return
			}
		}
		if err != nil {
			_ = g.sdk.CloseWithError(err) // io.EOF: the client is gone
			return
		}
	}
}

// readLine reads one line, without its newline. A line longer than
// MaxLineBytes is read to its end and dropped: over is its length so far.
func readLine(r *bufio.Reader) (line []byte, over int, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if over > 0 || len(line)+len(chunk) > MaxLineBytes+1 {
			over += len(line) + len(chunk)
			line = nil
		} else {
			line = append(line, chunk...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return bytes.TrimSuffix(line, []byte("\n")), over, err
		}
	}
}

// pass sends a line where it belongs; false once the SDK has closed.
func (g *gate) pass(line []byte) bool {
	trimmed := bytes.TrimSpace(line)
	if !json.Valid(trimmed) {
		g.reply(nil, jsonrpc.CodeParseError, "parse error: the line is not one JSON value; send one JSON-RPC message per line")
		return true
	}
	if trimmed[0] == '[' {
		g.reply(nil, jsonrpc.CodeInvalidRequest, "batches are not supported (MCP removed them in 2025-06-18); send one message per line")
		return true
	}
	if _, err := jsonrpc.DecodeMessage(trimmed); err != nil {
		g.reply(idOf(trimmed), jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
		return true
	}
	_, err := g.sdk.Write(append(trimmed, '\n'))
	return err == nil
}

// reply writes an error response with id (null when the message's id
// cannot be read); nothing once the session is closed.
func (g *gate) reply(id json.RawMessage, code int, message string) {
	g.mu.Lock()
	closed := g.closed
	g.mu.Unlock()
	if closed {
		return
	}
	if id == nil {
		id = json.RawMessage("null")
	}
	_ = g.out.writeMessage(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": message}})
}

// idOf is the id of a request that did not decode, when it has a usable
// one (a string or a number). A message without a method is a response
// of the client's, whose id is from the server's own requests: an error
// must not name it.
func idOf(msg []byte) json.RawMessage {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
	}
	if json.Unmarshal(msg, &m) != nil || len(m.ID) == 0 || len(m.Method) == 0 {
		return nil
	}
	switch m.ID[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return m.ID
	}
	return nil
}
