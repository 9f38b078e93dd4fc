package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// openTestStore is a store in a test directory that compacts as soon as
// dead bytes outnumber live ones; closed at the end of the test.
func openTestStore(t *testing.T) *BodyStore {
	t.Helper()
	st := OpenBodyStore(t.TempDir(), nil)
	if err := st.Failure(); err != nil {
		t.Fatal(err)
	}
	st.minDead = 1
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	})
	return st
}

// Bodies read back as written, after frees and the compaction they
// start; the compacted file holds the live bytes only, and nothing is
// left in the directory once the store is closed.
func TestBodyStoreKeepsBodiesThroughCompaction(t *testing.T) {
	dir := t.TempDir()
	st := OpenBodyStore(dir, nil)
	want := map[uint64]string{}
	for i := range 200 {
		body := fmt.Sprintf("# Skill %d\n\n%s", i, strings.Repeat("x", i))
		h, err := st.put(body)
		if err != nil {
			t.Fatal(err)
		}
		want[h] = body
	}
	// No compaction starts before the last free: a record freed while a
	// compaction copies is copied too and stays dead in the new file
	// (compact), so the file would hold only live bytes by chance.
	st.minDead = math.MaxInt64
	live, last := int64(0), uint64(0)
	for h, body := range want {
		if h%3 != 0 {
			if last == 0 {
				last = h // freed last, below
			} else {
				st.free(h)
			}
			delete(want, h)
			continue
		}
		live += int64(len(body))
	}
	st.minDead = 1
	st.free(last)
	st.compactWG.Wait()
	for h, body := range want {
		if got, ok := st.read(h); !ok || got != body {
			t.Fatalf("read(%d) = %q, %v; want %q", h, got, ok, body)
		}
	}
	if st.end != live || st.dead != 0 {
		t.Errorf("after compaction the file is %d bytes with %d dead; want the %d live bytes only", st.end, st.dead, live)
	}
	if got, ok := st.read(1); ok { // freed: 1 % 3 != 0
		t.Errorf("a freed record read back: %q", got)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("files left after Close: %v", left)
	}
	if _, err := st.put("after"); err == nil {
		t.Error("a closed store took a record")
	}
}

// Writers, readers and compactions at once (run with -race): a read
// returns the body written under its handle or nothing, never another.
func TestBodyStoreConcurrentReadsNeverMix(t *testing.T) {
	st := openTestStore(t)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 9))
			var mine []uint64
			bodies := map[uint64]string{}
			for i := range 400 {
				body := fmt.Sprintf("writer %d body %d %s", w, i, strings.Repeat("y", rng.IntN(300)))
				h, err := st.put(body)
				if err != nil {
					t.Error(err)
					return
				}
				mine, bodies[h] = append(mine, h), body
				if len(mine) > 8 {
					k := rng.IntN(len(mine))
					st.free(mine[k])
					delete(bodies, mine[k])
					mine = append(mine[:k], mine[k+1:]...)
				}
				for _, h := range mine {
					if got, ok := st.read(h); !ok || got != bodies[h] {
						t.Errorf("read(%d) = %q, %v; want %q", h, got, ok, bodies[h])
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

// The skills scope with a store answers as the scope on the heap, step
// for step, through writes, deletes, reloads, cached reads and
// evictions; and the store holds exactly the bodies the scope kept.
func TestScopeWithBodyStoreMatchesTheHeap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	heap := NewSkillsScope("skills", 3000)
	stored := NewSkillsScope("skills", 3000)
	st := openTestStore(t)
	stored.UseBodyStore(st)
	skill := func(key string) json.RawMessage {
		return skillRow(key, fmt.Sprintf("# %s\n\n%s", key, strings.Repeat("z", rng.IntN(900))))
	}
	for _, s := range []*Scope{heap, stored} {
		s.BeginLoad()
		s.EndLoad(nil)
	}
	for step := range 3000 {
		key := string(rune('a' + rng.IntN(12)))
		var apply func(s *Scope)
		op := rng.IntN(10)
		switch {
		case op < 4:
			raw := skill(key)
			apply = func(s *Scope) { s.Put(key, raw) }
		case op < 5:
			apply = func(s *Scope) { s.Delete(key) }
		case op < 6:
			var values []json.RawMessage
			for range rng.IntN(10) {
				values = append(values, skill(string(rune('a'+rng.IntN(12)))))
			}
			dirty := string(rune('a' + rng.IntN(12)))
			raw := skill(dirty)
			apply = func(s *Scope) {
				s.BeginLoad()
				s.Put(dirty, raw) // a write that overlaps the load
				s.EndLoad(values)
			}
		case op < 7:
			body := strings.Repeat("c", rng.IntN(1200))
			apply = func(s *Scope) {
				if e, found, _ := s.Get(key); found && !e.HasBody {
					s.CacheBody(key, body, e.Gen)
				}
			}
		default:
			apply = func(s *Scope) { s.Get(key) }
		}
		apply(heap)
		apply(stored)
		for k := range 12 {
			key := string(rune('a' + k))
			h, hf, ha := heap.Get(key)
			s, sf, sa := stored.Get(key)
			if diff := cmp.Diff(fmt.Sprint(h, hf, ha), fmt.Sprint(s, sf, sa)); diff != "" {
				t.Fatalf("step %d, key %s (-heap +stored):\n%s", step, key, diff)
			}
		}
		used, _, _, _ := stored.Stats()
		st.compactWG.Wait()
		if st.live != used {
			t.Fatalf("step %d (op %d): the store holds %d live bytes, the scope keeps %d", step, op, st.live, used)
		}
	}
}

// A load and writes of the same keys at once, with readers (run with
// -race): a body read is always the one its summary describes, and once
// all is quiet every body the scope says it keeps reads back.
func TestBodyStoreLoadOverlappingWritesLosesNoBody(t *testing.T) {
	st := openTestStore(t)
	s := NewSkillsScope("skills", 64<<10)
	s.UseBodyStore(st)
	keys := []string{"team/a", "team/b", "team/c", "team/d"}
	body := func(key string, n int) string {
		return fmt.Sprintf("# %s\n\nversion %d %s", key, n, strings.Repeat("w", n%500))
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(3)
	go func() { // the loads
		defer wg.Done()
		for n := 0; ; n++ {
			select {
			case <-stop:
				return
			default:
			}
			s.BeginLoad()
			var values []json.RawMessage
			for _, k := range keys {
				values = append(values, skillRow(k, body(k, n)))
			}
			s.EndLoad(values)
		}
	}()
	go func() { // the writes
		defer wg.Done()
		for n := 0; n < 2000; n++ {
			k := keys[n%len(keys)]
			s.Put(k, skillRow(k, body(k, 100000+n)))
		}
		close(stop)
	}()
	go func() { // the reads
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			for _, k := range keys {
				if e, found, _ := s.Get(k); found && e.HasBody {
					checkBodyMatchesSummary(t, k, e)
				}
			}
		}
	}()
	wg.Wait()
	for _, k := range keys {
		e, found, _ := s.Get(k)
		if !found || !e.HasBody {
			t.Errorf("%s: found=%v, body kept=%v after the writes; want its body", k, found, e.HasBody)
			continue
		}
		checkBodyMatchesSummary(t, k, e)
	}
}

func checkBodyMatchesSummary(t *testing.T, key string, e Entry) {
	t.Helper()
	sum := sha256.Sum256([]byte(e.Body))
	if want := e.Summary.(StateSkill).SHA256; hex.EncodeToString(sum[:]) != want {
		t.Errorf("%s: the body read (%.40q) is not the one its summary describes", key, e.Body)
	}
}

// A store that cannot create its file (here its directory is a file)
// keeps bodies on the heap: the scope serves every body, one warning is
// logged, and the reason is there for diagnostics.
func TestBodyStoreThatCannotOpenFallsBackToTheHeap(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	core, logs := observer.New(zap.WarnLevel)
	st := OpenBodyStore(notDir, zap.New(core))
	t.Cleanup(func() { st.Close() })
	s := NewSkillsScope("skills", 1<<20)
	s.UseBodyStore(st)
	load(s, skillRow("team/a", "# A\n"), skillRow("team/b", "# B\n"))
	s.Put("team/c", skillRow("team/c", "# C\n"))
	for key, want := range map[string]string{"team/a": "# A\n", "team/b": "# B\n", "team/c": "# C\n"} {
		if e, _, _ := s.Get(key); !e.HasBody || e.Body != want {
			t.Errorf("%s = %+v; want its body from the heap", key, e)
		}
	}
	if err := s.BodyStoreFailure(); err == nil || !strings.Contains(err.Error(), notDir) {
		t.Errorf("BodyStoreFailure = %v; want the reason, naming %s", err, notDir)
	}
	if n := logs.Len(); n != 1 {
		t.Errorf("%d warnings logged, want 1: %v", n, logs.All())
	}
}

// A store whose writes start failing (a full disk) keeps what it wrote,
// and the bodies it refuses stay on the heap: no read fails, one warning.
func TestBodyStoreThatCannotWriteFallsBackToTheHeap(t *testing.T) {
	core, logs := observer.New(zap.WarnLevel)
	st := OpenBodyStore(t.TempDir(), zap.New(core))
	t.Cleanup(func() { st.Close() })
	full := &fullDisk{bodyFile: st.f, room: 2}
	st.f = full
	s := NewSkillsScope("skills", 1<<20)
	s.UseBodyStore(st)
	load(s)
	want := map[string]string{}
	for i := range 6 {
		key := fmt.Sprintf("team/s%d", i)
		want[key] = fmt.Sprintf("# Skill %d\n", i)
		s.Put(key, skillRow(key, want[key]))
	}
	for key, body := range want {
		if e, _, _ := s.Get(key); !e.HasBody || e.Body != body {
			t.Errorf("%s = %+v; want its body", key, e)
		}
	}
	if len(st.recs) != 2 {
		t.Errorf("the store holds %d records; want the 2 written before the disk filled", len(st.recs))
	}
	if err := s.BodyStoreFailure(); !errors.Is(err, errDiskFull) {
		t.Errorf("BodyStoreFailure = %v; want the write's error", err)
	}
	if n := logs.Len(); n != 1 {
		t.Errorf("%d warnings logged, want 1: %v", n, logs.All())
	}
}

var errDiskFull = errors.New("no space left on device")

// fullDisk takes room writes, then fails every write.
type fullDisk struct {
	bodyFile
	room int
}

func (f *fullDisk) WriteAt(p []byte, off int64) (int, error) {
	if f.room == 0 {
		return 0, errDiskFull
	}
	f.room--
	return f.bodyFile.WriteAt(p, off)
}

// skillRow is a stored skill row as the engine returns it.
func skillRow(id, body string) json.RawMessage {
	b, _ := json.Marshal(SkillRow{ID: id, Skill: body, RegisteredAt: "2026-01-01T00:00:00Z"})
	return b
}

// The worker's own writes (skills::register, D51) keep their bodies in
// the store as loaded ones do, not on the heap (issue 28: 10,000
// registered bodies stayed on the heap, RSS 3.4× the bodies): every
// entry holds a handle, the store's live bytes are the scope's, and each
// body reads back as the last one written, an overwrite freeing the old.
func TestOwnWritesKeepBodiesInTheBodyStore(t *testing.T) {
	s := NewSkillsScope("skills", 1<<20)
	st := openTestStore(t)
	s.UseBodyStore(st)
	load(s)
	want := map[string]string{}
	for i := range 30 {
		key := fmt.Sprintf("team/s%d", i%10) // each key written three times
		body := fmt.Sprintf("# Skill %d\n\n%s", i, strings.Repeat("w", 100+i))
		raw := skillRow(key, body)
		d, _ := s.decode(raw)
		s.beginOwnWrite(key)
		s.endOwnWrite(key, &d, sumOf(raw))
		if !s.ownEvent(key, sumOf(raw)) {
			t.Fatalf("the event of the own write of %s was not recognised", key)
		}
		want[key] = body
	}
	st.compactWG.Wait()
	used, _, _, _ := s.Stats()
	if st.live != used {
		t.Errorf("the store holds %d live bytes, the scope keeps %d", st.live, used)
	}
	for key, body := range want {
		_, ref, found, _ := s.get(key)
		if !found || ref == 0 {
			t.Errorf("%s: found %v, in the store %v; want its body in the store", key, found, ref != 0)
		}
		if e, _, _ := s.Get(key); e.Body != body {
			t.Errorf("%s reads back %.40q, want %.40q", key, e.Body, body)
		}
	}
}
