package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

// logged reads dir's state log as the next start would, without stopping
// the engine that writes it.
func logged(t *testing.T, dir string) *stateStore {
	t.Helper()
	st := newStateStore()
	if _, _, err := replayLog(filepath.Join(dir, StateLog), st); err != nil {
		t.Fatal(err)
	}
	return st
}

// A write is on the disk when it is acknowledged: reading the log while
// the engine still runs (as a start after a kill -9 would) finds every
// acknowledged write of 8 concurrent callers, and the emptied scope.
func TestStateWriteIsOnDiskWhenAcknowledged(t *testing.T) {
	dir := t.TempDir()
	s := newTestServerWith(t, Options{DataDir: dir})
	var wg sync.WaitGroup
	for w := range 8 {
		p := dial(t, s)
		wg.Go(func() {
			for i := range 50 {
				p.callOK("state::set", fmt.Sprintf(`{"scope":"s","key":"w%d-%d","value":{"n":%d}}`, w, i%20, i))
			}
		})
	}
	wg.Wait()
	if err := s.SetState("gone", "x", json.RawMessage(`1`)); err != nil {
		t.Fatal(err)
	}
	s.DeleteState("gone", "x")

	st := logged(t, dir)
	for w := range 8 {
		for k := range 20 {
			got, ok := st.get("s", fmt.Sprintf("w%d-%d", w, k))
			last := k + 40 // the last i with i%20 == k, i < 50
			if last >= 50 {
				last -= 20
			}
			if want := fmt.Sprintf(`{"n":%d}`, last); !ok || string(got) != want {
				t.Fatalf("w%d-%d on disk = %s (%v), want %s", w, k, got, ok, want)
			}
		}
	}
	if _, ok := st.get("gone", "x"); ok || !strings.Contains(fmt.Sprint(st.groups()), "gone") {
		t.Errorf("deleted key still on disk, or its emptied scope not: %v", st.groups())
	}
}

// failingFile is a state log whose writes fail with err while it is set
// (a full disk, an I/O error), and whose Truncate may fail too.
type failingFile struct {
	*os.File
	writeErr, truncErr atomic.Pointer[error]
	wrote              atomic.Int64
}

func (f *failingFile) Write(b []byte) (int, error) {
	if e := f.writeErr.Load(); e != nil {
		// half of it reaches the file first, as a write cut short does
		n, _ := f.File.Write(b[:len(b)/2])
		return n, *e
	}
	f.wrote.Add(1)
	return f.File.Write(b)
}

func (f *failingFile) Truncate(size int64) error {
	if e := f.truncErr.Load(); e != nil {
		return *e
	}
	return f.File.Truncate(size)
}

// A write the disk refuses is refused to its caller with the log's path
// and the cause; it is not applied, fires nothing, and is not found after
// a restart, while the writes before and after it are. Once the file's
// end cannot be cut back, every write is refused.
func TestStateWriteThatCannotBePersistedIsRefused(t *testing.T) {
	dir := t.TempDir()
	var file *failingFile
	opts := Options{DataDir: dir, stateLogTesting: &stateLogTesting{compactMin: compactMinBytes, open: func(path string) (logFile, error) {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, err
		}
		file = &failingFile{File: f}
		return file, nil
	}}}
	s := newTestServerWith(t, opts)
	watcher := dial(t, s)
	bindState(watcher, "t1", "on-state", `{"scope":"s"}`)
	p := dial(t, s)
	p.callOK("state::set", `{"scope":"s","key":"a","value":1}`)
	if ev := nextEvent(watcher, "on-state"); !strings.Contains(ev, `"key":"a"`) {
		t.Fatalf("first event = %s", ev)
	}

	full := error(syscall.ENOSPC)
	file.writeErr.Store(&full)
	res := p.call("state::set", `{"scope":"s","key":"a","value":2}`)
	path := filepath.Join(dir, StateLog)
	if res.Error == nil || !strings.Contains(res.Error.Message, path) || !strings.Contains(res.Error.Message, "no space left on device") {
		t.Fatalf("state::set on a full disk = %+v, want an error naming %s and the cause", res, path)
	}
	if res := p.call("state::delete", `{"scope":"s","key":"a"}`); res.Error == nil {
		t.Fatalf("state::delete on a full disk = %+v, want an error", res)
	}
	if err := s.SetState("s", "b", json.RawMessage(`3`)); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("SetState on a full disk = %v, want an error naming %s", err, path)
	}
	if got := string(p.callOK("state::list", `{"scope":"s"}`)); got != `[1]` {
		t.Errorf("state::list after refused writes = %s, want [1]", got)
	}

	file.writeErr.Store(nil)
	p.callOK("state::set", `{"scope":"s","key":"c","value":4}`)
	if ev := nextEvent(watcher, "on-state"); !strings.Contains(ev, `"key":"c"`) {
		t.Errorf("next event = %s, want c's: the refused writes fire none", ev)
	}
	if got := fmt.Sprintf("%s", logged(t, dir).values("s")); got != "[1 4]" {
		t.Errorf("on disk after the disk came back = %s, want [1 4]", got)
	}

	broken := errors.New("input/output error")
	file.writeErr.Store(&full)
	file.truncErr.Store(&broken)
	if err := s.SetState("s", "d", json.RawMessage(`5`)); err == nil {
		t.Fatal("a write that failed was acknowledged")
	}
	file.writeErr.Store(nil)
	err := s.SetState("s", "e", json.RawMessage(`6`))
	if err == nil || !strings.Contains(err.Error(), "unusable until the engine restarts") {
		t.Fatalf("a write after the log's end was lost = %v, want a refusal", err)
	}
	s.Close()

	again := newTestServerWith(t, Options{DataDir: dir})
	if got := fmt.Sprintf("%s", again.StateValues("s")); got != "[1 4]" {
		t.Errorf("after a restart = %s, want [1 4] (the torn write cut off)", got)
	}
}

// Concurrent writers share an fsync: 8 callers writing at once take fewer
// writes (one per batch) than they made calls.
func TestConcurrentWritersShareAnFsync(t *testing.T) {
	var file *failingFile
	s := newTestServerWith(t, Options{DataDir: t.TempDir(), stateLogTesting: &stateLogTesting{compactMin: compactMinBytes, open: func(path string) (logFile, error) {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
		file = &failingFile{File: f}
		return file, err
	}}})
	var wg sync.WaitGroup
	for w := range 8 {
		p := dial(t, s)
		wg.Go(func() {
			for i := range 100 {
				p.callOK("state::set", fmt.Sprintf(`{"scope":"s","key":"w%d","value":%d}`, w, i))
			}
		})
	}
	wg.Wait()
	t.Logf("%d writes for 800 calls", file.wrote.Load())
	if n := file.wrote.Load(); n >= 800 {
		t.Errorf("%d writes for 800 calls: no batch was shared", n)
	}
}

// The log is compacted once it has doubled (and is past its minimum): the
// file stays within twice the state it holds, a restart finds the same state in the same order, and
// no temporary file is left.
func TestStateLogIsCompacted(t *testing.T) {
	dir := t.TempDir()
	const minBytes = 64 << 10
	s := newTestServerWith(t, Options{DataDir: dir, stateLogTesting: &stateLogTesting{open: openAppend, compactMin: minBytes}})
	value := `"` + strings.Repeat("x", 4096) + `"`
	p := dial(t, s)
	p.callOK("state::set", `{"scope":"empty","key":"x","value":1}`)
	p.callOK("state::delete", `{"scope":"empty","key":"x"}`)
	for i := range 3 * minBytes / 4096 {
		p.callOK("state::set", fmt.Sprintf(`{"scope":"s","key":"k%d","value":%s}`, i%10, value))
	}
	info, err := os.Stat(filepath.Join(dir, StateLog))
	if err != nil {
		t.Fatal(err)
	}
	// 10 values of 4 KiB live; uncompacted, the log would be 3 × minBytes
	if info.Size() > 2*minBytes {
		t.Errorf("log is %d bytes after 3 × %d of overwrites of 40 KiB, want it compacted (at most %d)", info.Size(), minBytes, 2*minBytes)
	}
	before := string(p.callOK("state::list", `{"scope":"s"}`))
	s.Close()
	if left, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
	again := newTestServerWith(t, Options{DataDir: dir})
	q := dial(t, again)
	if got := string(q.callOK("state::list", `{"scope":"s"}`)); got != before {
		t.Error("state::list after a compaction and a restart differs")
	}
	if got := string(q.callOK("state::list_groups", `{}`)); !strings.Contains(got, `"empty"`) {
		t.Errorf("list_groups after a compaction = %s, want the emptied scope kept", got)
	}
}

// A crash leaves nothing that grows: a record torn at the log's end is cut
// off at the next start (the writes before it kept), and a compaction's
// or the old flusher's temporary file is removed.
func TestStartCleansWhatACrashLeft(t *testing.T) {
	dir := t.TempDir()
	s := newTestServerWith(t, Options{DataDir: dir})
	if err := s.SetState("s", "a", json.RawMessage(`1`)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	path := filepath.Join(dir, StateLog)
	good, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	torn := encodeRecord(nil, opSet, "s", "b", json.RawMessage(`2`))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(torn[:len(torn)-1]); err != nil {
		t.Fatal(err)
	}
	f.Close() //nolint:errcheck // written
	leftovers := []string{path + ".tmp", filepath.Join(dir, ".state.json.123456")}
	for _, name := range leftovers {
		if err := os.WriteFile(name, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	again := newTestServerWith(t, Options{DataDir: dir})
	if got := fmt.Sprintf("%s", again.StateValues("s")); got != "[1]" {
		t.Errorf("after a torn record = %s, want [1]", got)
	}
	if info, err := os.Stat(path); err != nil || info.Size() != good.Size() {
		t.Errorf("log is %v bytes (%v), want the torn record cut off (%d)", info.Size(), err, good.Size())
	}
	for _, name := range leftovers {
		if _, err := os.Stat(name); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", name, err)
		}
	}
	if err := again.SetState("s", "c", json.RawMessage(`3`)); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%s", logged(t, dir).values("s")); got != "[1 3]" {
		t.Errorf("on disk after a write past the cut = %s, want [1 3]", got)
	}
}
