package iii

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gorilla/websocket"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// listElements are n array elements of about size bytes each.
func listElements(n, size int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(`{"id":"skill-%05d","skill":"%s"}`, i, strings.Repeat("b", size))
	}
	return out
}

// resultHead is the start of an invocationresult frame for inv, up to
// and including the '[' of its result, in the engine's field order.
func resultHead(inv wire.InvokeFunction) string {
	return `{"type":"invocationresult","invocation_id":"` + inv.InvocationID + `","function_id":"` + inv.FunctionID + `","result":[`
}

// invokeOf is the invokefunction in m with an invocation id, if it is one.
func invokeOf(m wire.Message) (wire.InvokeFunction, bool) {
	inv, ok := m.(wire.InvokeFunction)
	return inv, ok && inv.InvocationID != ""
}

// callEach gathers CallEach's elements.
func callEach(ctx context.Context, c *Client, fn string) ([]string, error) {
	var got []string
	err := c.CallEach(ctx, fn, nil, func(el json.RawMessage) { got = append(got, string(el)) })
	return got, err
}

// The elements of a result reach the caller while its frame is still
// being read: the peer writes the first half of a frame, waits until the
// caller has the first element, then writes the rest. A client that read
// the frame whole would never hand the first element over in time.
func TestCallEachStreamsAFrameAsItArrives(t *testing.T) {
	p := newPeer(t)
	elements := listElements(200, 1000)
	first := make(chan struct{})
	p.setScript(func(pc *peerConn, m wire.Message) {
		inv, ok := invokeOf(m)
		if !ok || inv.FunctionID != "list" {
			return
		}
		go func() {
			pc.wmu.Lock()
			defer pc.wmu.Unlock()
			w, err := pc.ws.NextWriter(websocket.TextMessage)
			if err != nil {
				return
			}
			defer w.Close()
			fmt.Fprint(w, resultHead(inv)+strings.Join(elements[:100], ","))
			// The writer flushes what it holds when the frame fragment
			// is full; write enough to send the first half.
			select {
			case <-first:
			case <-time.After(waitFor):
				t.Error("the first element did not reach the caller before the frame was finished")
			}
			fmt.Fprint(w, ","+strings.Join(elements[100:], ",")+`]}`)
		}()
	})
	c, _ := newClient(t, p)
	startReady(t, c)
	var got []string
	err := c.CallEach(context.Background(), "list", nil, func(el json.RawMessage) {
		if len(got) == 0 {
			close(first)
		}
		got = append(got, string(el))
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(elements, got); diff != "" {
		t.Errorf("elements (-sent +got):\n%s", diff)
	}
}

// Results that are not streamed: a small array, no result, null, a
// remote error and a result that is not an array.
func TestCallEachResults(t *testing.T) {
	p := newPeer(t)
	p.setScript(func(pc *peerConn, m wire.Message) {
		inv, ok := invokeOf(m)
		if !ok {
			return
		}
		res := wire.InvocationResult{InvocationID: inv.InvocationID, FunctionID: inv.FunctionID}
		switch inv.FunctionID {
		case "small":
			res.Result = json.RawMessage(`[1, {"a":[2]}, "three"]`)
		case "null":
			res.Result = json.RawMessage(`null`)
		case "object":
			res.Result = json.RawMessage(`{"skills":[]}`)
		case "fail":
			res.Error = &wire.ErrorBody{Code: "not_found", Message: "no such scope"}
		}
		pc.send(res)
	})
	c, _ := newClient(t, p)
	startReady(t, c)
	ctx := context.Background()
	for _, tt := range []struct {
		fn   string
		want []string
		err  func(error) bool
	}{
		{fn: "small", want: []string{`1`, `{"a":[2]}`, `"three"`}},
		{fn: "nothing"},
		{fn: "null"},
		{fn: "object", err: func(err error) bool { return errors.Is(err, ErrNotArray) }},
		{fn: "fail", err: func(err error) bool { var e *Error; return errors.As(err, &e) && e.Code == "not_found" }},
	} {
		got, err := callEach(ctx, c, tt.fn)
		if tt.err == nil && err != nil || tt.err != nil && !tt.err(err) {
			t.Errorf("%s: error %v", tt.fn, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: elements (-want +got):\n%s", tt.fn, diff)
		}
	}
}

// A streamed result with an element that is not valid JSON fails the
// call with a clear error; the connection goes on serving. A caller that
// gives up mid-stream returns at once, and the rest of its frame is
// skipped.
func TestCallEachBadArrayAndCallerGivingUp(t *testing.T) {
	p := newPeer(t)
	big := strings.Join(listElements(500, 200), ",")
	p.setScript(func(pc *peerConn, m wire.Message) {
		inv, ok := invokeOf(m)
		if !ok {
			return
		}
		switch inv.FunctionID {
		case "bad":
			pc.sendRaw(websocket.TextMessage, []byte(resultHead(inv)+big+`,{"id":1]}`))
		case "list":
			pc.sendRaw(websocket.TextMessage, []byte(resultHead(inv)+big+`]}`))
		case "echo":
			pc.send(wire.InvocationResult{InvocationID: inv.InvocationID, FunctionID: "echo", Result: inv.Data})
		}
	})
	c, _ := newClient(t, p)
	startReady(t, c)
	ctx := context.Background()
	if _, err := callEach(ctx, c, "bad"); err == nil || !strings.Contains(err.Error(), "element 500 is not valid JSON") {
		t.Errorf("bad array: error %v, want the element named", err)
	}
	stop, cancel := context.WithCancel(ctx)
	n := 0
	err := c.CallEach(stop, "list", nil, func(json.RawMessage) {
		if n++; n == 3 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("a caller that gave up: %v, want context.Canceled", err)
	}
	if got, err := c.Call(ctx, "echo", json.RawMessage(`7`)); err != nil || string(got) != "7" {
		t.Errorf("call on the same connection after: %s, %v", got, err)
	}
	if n := p.connCount(); n != 1 {
		t.Errorf("%d connections; want the first one kept", n)
	}
}

// max_frame_bytes still bounds a streamed result: the call fails, and the
// connection ends with an error that names the limit.
func TestCallEachFrameOverTheLimit(t *testing.T) {
	p := newPeer(t)
	p.setScript(func(pc *peerConn, m wire.Message) {
		if inv, ok := invokeOf(m); ok && inv.FunctionID == "list" {
			pc.sendRaw(websocket.TextMessage, []byte(resultHead(inv)+strings.Join(listElements(100, 1000), ",")+`]}`))
		}
	})
	c, logs := newClient(t, p, func(o *Options) { o.MaxFrameBytes = 64 << 10 })
	startReady(t, c)
	n := 0
	err := c.CallEach(context.Background(), "list", nil, func(json.RawMessage) { n++ })
	if !errors.Is(err, ErrNotConnected) {
		t.Errorf("a result over the frame limit: %v (after %d elements), want the call failed with its connection", err, n)
	}
	entry := waitLog(t, logs, "disconnected from engine")
	if msg, _ := entry.ContextMap()["error"].(string); !strings.Contains(msg, "larger than 65536 bytes") {
		t.Errorf("logged error %q, want the size limit", msg)
	}
}

// The reader keeps the socket's pace whatever the caller does: the peer's
// write of a frame far bigger than the socket's buffers completes while
// the caller has not taken a single element (the engine bounds a frame's
// write, and drops a connection that does not take it in time). The
// backlog beyond spoolMemory goes to a file that has no name, and every
// element arrives, in order.
func TestCallEachReaderDoesNotWaitForTheCaller(t *testing.T) {
	old := spoolMemory
	spoolMemory = 64 << 10
	t.Cleanup(func() { spoolMemory = old })
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	elements := listElements(2000, 4000) // 8 MB
	written := make(chan error, 1)
	p := newPeer(t)
	p.setScript(func(pc *peerConn, m wire.Message) {
		if inv, ok := invokeOf(m); ok && inv.FunctionID == "list" {
			go func() {
				pc.wmu.Lock()
				defer pc.wmu.Unlock()
				pc.ws.SetWriteDeadline(time.Now().Add(waitFor))
				written <- pc.ws.WriteMessage(websocket.TextMessage, []byte(resultHead(inv)+strings.Join(elements, ",")+`]}`))
			}()
		}
	})
	c, _ := newClient(t, p)
	startReady(t, c)
	var got []string
	// 8 MB under the race detector on a busy machine: the call gets time.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := c.CallEach(ctx, "list", nil, func(el json.RawMessage) {
		if len(got) == 0 {
			if err := <-written; err != nil {
				t.Errorf("the peer's write of the frame, with the caller holding its first element: %v", err)
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("the spool left a name in %s: %v", tmp, left)
			}
		}
		got = append(got, string(el))
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(elements, got); diff != "" {
		t.Errorf("elements (-sent +got):\n%s", diff)
	}
}

// A spool gives back what was written, in order: from memory, then from
// its file past spoolMemory (which has no name), or from memory only when
// no file can be made. A reader waits for bytes, sees the reader's error,
// and gives up with its ctx; after close, writes are refused.
func TestSpool(t *testing.T) {
	old := spoolMemory
	spoolMemory = 10
	t.Cleanup(func() { spoolMemory = old })
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, tmp := range map[string]string{"with a file": t.TempDir(), "without": notDir} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("TMPDIR", tmp)
			sp := newSpool()
			defer sp.close()
			chunks := []string{`["first",`, ` "second element", `, `"third"]`, `,"traceparent":"x"}`}
			for _, c := range chunks {
				if err := sp.write([]byte(c)); err != nil {
					t.Fatal(err)
				}
			}
			sp.finish(nil)
			if tmp == notDir && (!sp.noFile || sp.file != nil) || tmp != notDir && sp.file == nil {
				t.Errorf("file %v, noFile %v: want a file only where one can be made", sp.file, sp.noFile)
			}
			if left, _ := os.ReadDir(tmp); tmp != notDir && len(left) != 0 {
				t.Errorf("the spool's file has a name in %s: %v", tmp, left)
			}
			got, err := io.ReadAll(sp.reader(t.Context()))
			if err != nil || string(got) != strings.Join(chunks, "") {
				t.Errorf("read back %q, %v; want %q", got, err, strings.Join(chunks, ""))
			}
			sp.close()
			if err := sp.write([]byte(`1`)); !errors.Is(err, errSpoolGone) {
				t.Errorf("write after close = %v, want errSpoolGone", err)
			}
		})
	}
	lost := errors.New("connection lost")
	sp := newSpool()
	defer sp.close()
	sp.write([]byte(`[1,`))
	sp.finish(lost)
	if got, err := io.ReadAll(sp.reader(t.Context())); !errors.Is(err, lost) || string(got) != `[1,` {
		t.Errorf("a spool the reader lost: %q, %v", got, err)
	}
	waiting := newSpool()
	defer waiting.close()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := waiting.reader(ctx).Read(make([]byte, 8)); !errors.Is(err, context.Canceled) {
		t.Errorf("a read with nothing to read and its ctx ended: %v", err)
	}
}

// A spool whose file stops taking writes part way (a full $TMPDIR, a file
// size limit) keeps what the file took and the rest in memory after it:
// the result reads back whole and in order, and the call does not fail
// (docs/decisions.md D79). The file that fills up is injected: a full
// disk cannot be made on demand in a unit test.
func TestSpoolWhoseFileFillsUpKeepsTheRestInMemory(t *testing.T) {
	oldMemory, oldCreate := spoolMemory, createSpoolFile
	t.Cleanup(func() { spoolMemory, createSpoolFile = oldMemory, oldCreate })
	spoolMemory = 10
	var made *fillingFile
	createSpoolFile = func() (spoolFile, error) {
		f, err := os.CreateTemp(t.TempDir(), "spool-*")
		if err != nil {
			return nil, err
		}
		made = &fillingFile{File: f, room: 15}
		return made, nil
	}
	sp := newSpool()
	defer sp.close()
	chunks := []string{`["first",`, ` "second element", `, `"third", `, `"fourth"]`}
	for _, c := range chunks {
		if err := sp.write([]byte(c)); err != nil {
			t.Fatalf("write %q: %v; want the spool to keep it in memory", c, err)
		}
	}
	sp.finish(nil)
	if made == nil || sp.fileEnd != 15 || !sp.noFile {
		t.Errorf("file made %v, took %d bytes, noFile %v: want a file that took 15 bytes, then memory", made != nil, sp.fileEnd, sp.noFile)
	}
	got, err := io.ReadAll(sp.reader(t.Context()))
	if want := strings.Join(chunks, ""); err != nil || string(got) != want {
		t.Errorf("read back %q, %v; want %q", got, err, want)
	}
}

// fillingFile is a file with room for so many bytes: a write past them
// writes what fits and fails as a full disk does.
type fillingFile struct {
	*os.File
	room int64
}

func (f *fillingFile) WriteAt(p []byte, off int64) (int, error) {
	n := int(max(0, min(int64(len(p)), f.room-off)))
	if _, err := f.File.WriteAt(p[:n], off); err != nil {
		return 0, err
	}
	if n < len(p) {
		return n, &os.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
	}
	return n, nil
}
