package catalog

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

// A store on a disk that fills up mid-run (docs/decisions.md D79): the
// bodies written before stay readable, the ones refused stay on the
// heap, and a compaction that fails for want of room is not tried again
// at every free (each try copies as much as fits first) but once the
// dead bytes have doubled. The full disk is injected: one cannot be made
// on demand in a unit test.
func TestBodyStoreOnAFullDiskCompactsOnlyWhenWorthIt(t *testing.T) {
	const size = 100
	disk := &sharedDisk{free: 10 * size}
	st := openBodyStore(t.TempDir(), nil, disk.file)
	t.Cleanup(func() { st.Close() })
	st.minDead = 1
	bodies := map[uint64]string{}
	var handles []uint64
	for i := range 10 {
		body := fmt.Sprintf("%-*d", size, i)
		h, err := st.put(body)
		if err != nil {
			t.Fatalf("put %d with room on the disk: %v", i, err)
		}
		bodies[h] = body
		handles = append(handles, h)
	}
	if _, err := st.put(strings.Repeat("x", size)); err == nil || st.Failure() == nil {
		t.Fatalf("put on a full disk = %v, Failure %v; want both to say the disk is full", err, st.Failure())
	}
	for i, h := range handles[:8] {
		st.free(h)
		delete(bodies, h)
		st.compactWG.Wait()
		// The first free with dead bytes over live ones (the 6th) tries
		// once and fails; 1,200 dead bytes are then needed, never reached.
		if want := 1 + min(1, max(0, i-4)); disk.made() != want {
			t.Fatalf("after %d frees %d files were made; want %d (the store's and one compaction's)", i+1, disk.made(), want)
		}
	}
	for h, want := range bodies {
		if got, ok := st.read(h); !ok || got != want {
			t.Errorf("record %d = %q, %v; want %q", h, got, ok, want)
		}
	}
}

// sharedDisk is a disk with room for so many bytes, shared by the files
// made on it: a write past them writes what fits and fails as a full disk
// does, and a file's bytes come back when it is closed (its name was
// removed at once).
type sharedDisk struct {
	mu    sync.Mutex
	free  int64
	files atomic.Int32
}

func (d *sharedDisk) file(f *os.File) bodyFile {
	d.files.Add(1)
	return &fileOnDisk{File: f, d: d}
}

func (d *sharedDisk) made() int { return int(d.files.Load()) }

type fileOnDisk struct {
	*os.File
	d    *sharedDisk
	size int64
}

func (f *fileOnDisk) WriteAt(p []byte, off int64) (int, error) {
	f.d.mu.Lock()
	n := int64(len(p))
	if grow := off + n - f.size; grow > f.d.free {
		n = max(0, f.size+f.d.free-off)
	}
	f.d.free -= max(0, off+n-f.size)
	f.size = max(f.size, off+n)
	f.d.mu.Unlock()
	if _, err := f.File.WriteAt(p[:n], off); err != nil {
		return 0, err
	}
	if n < int64(len(p)) {
		return int(n), &os.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
	}
	return int(n), nil
}

func (f *fileOnDisk) Close() error {
	f.d.mu.Lock()
	f.d.free += f.size
	f.size = 0
	f.d.mu.Unlock()
	return f.File.Close()
}

// A scope whose store fills up part way through (a load, then writes,
// deletes, reloads and evictions) serves every body as written, and what
// it reports of where its bodies are (HeapBodies, Stats) is what a count
// of its entries from scratch finds: diagnostics tell the truth.
func TestScopeOnAFullDiskCountsTheBodiesOnTheHeap(t *testing.T) {
	disk := &sharedDisk{free: 40 * 64}
	st := openBodyStore(t.TempDir(), nil, disk.file)
	t.Cleanup(func() { st.Close() })
	const budget = 25 * 64 // fewer bodies than keys: evictions too
	s := NewSkillsScope("skills", budget)
	s.UseBodyStore(st)
	want := map[string]string{}
	var rows []json.RawMessage
	for i := range 30 {
		key := fmt.Sprintf("team/s%02d", i)
		want[key] = fmt.Sprintf("# S%02d\n%-58d", i, i)
		rows = append(rows, skillRow(key, want[key]))
	}
	load(s, rows...)
	rng := rand.New(rand.NewPCG(28, 79))
	for step := range 400 {
		key := fmt.Sprintf("team/s%02d", rng.IntN(40))
		switch rng.IntN(10) {
		case 0:
			s.Delete(key)
			delete(want, key)
		case 1:
			rows = rows[:0]
			for k, body := range want {
				rows = append(rows, skillRow(k, body))
			}
			load(s, rows...)
		default:
			want[key] = fmt.Sprintf("# %s step %d\n%-40d", key, step, step)
			s.Put(key, skillRow(key, want[key]))
		}
		checkHeapCount(t, s, step)
	}
	if n, _ := s.HeapBodies(); st.Failure() == nil || n == 0 {
		t.Fatalf("the disk never filled (%v) or no body went to the heap (%d); the test checks nothing", st.Failure(), n)
	}
	for key, body := range want {
		if e, found, _ := s.Get(key); !found || e.HasBody && e.Body != body {
			t.Errorf("%s = %+v, %v; want %q", key, e, found, body)
		}
	}
}

// checkHeapCount compares the scope's counts of its bodies with a count
// from scratch.
func checkHeapCount(t *testing.T, s *Scope, step int) {
	t.Helper()
	s.mu.Lock()
	var n int
	var heap, used int64
	for _, en := range s.entries {
		if !en.hasBody {
			continue
		}
		used += en.size
		if en.ref == 0 {
			n++
			heap += en.size
		}
	}
	s.mu.Unlock()
	gotN, gotHeap := s.HeapBodies()
	gotUsed, _, _, _ := s.Stats()
	if gotN != n || gotHeap != heap || gotUsed != used {
		t.Fatalf("step %d: HeapBodies %d, %d bytes, Stats used %d; counted %d, %d bytes, %d used", step, gotN, gotHeap, gotUsed, n, heap, used)
	}
}
