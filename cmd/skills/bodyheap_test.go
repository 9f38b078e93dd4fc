package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/diagnostics"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/iii/iiitest"
)

// A worker whose $TMPDIR cannot take its body store's file (and the
// spool of a large state::list) loads its scope once, serves every body
// from the heap, and says so in skills::diagnostics (docs/decisions.md
// D79). Before, a worker restarted with a full $TMPDIR listed the whole
// scope again every ~0.75 s and never loaded it. The real binaries: a
// `skills engine`, and the worker with either a $TMPDIR under a regular
// file (no file can be made there, even as root) or its files limited
// by RLIMIT_FSIZE (`ulimit -f`: a write past the limit fails with EFBIG,
// as one on a full disk fails with ENOSPC), below the scope's size (the
// store and the spool fill up during the load) or above it (the store
// fills up mid-run, under later registrations).
func TestWorkerWithAnUnwritableTmpdirLoadsOnceAndTellsTheTruth(t *testing.T) {
	const (
		stored     = 3000 // × 4 KiB: 12 MB, well past the spool's 4 MiB in memory
		registered = 600  // more, through skills::register, after the load
	)
	notDir := filepath.Join(t.TempDir(), "file")
	writeFile(t, notDir, "")
	cases := []struct {
		name     string
		tmpdir   string
		limitKiB int    // RLIMIT_FSIZE; 0: none
		reason   string // what diagnostics' body_store says
		allHeap  bool   // every body on the heap (the store never took one)
		midRun   bool   // the store fills up after the load
	}{
		{name: "tmpdir under a file", tmpdir: filepath.Join(notDir, "sub"), reason: "not a directory", allHeap: true},
		{name: "files limited below the scope", limitKiB: 1024, reason: "file too large"},
		// The load's 11.7 MiB of bodies fit; the 328th registration does not.
		{name: "files limited above the scope", limitKiB: 13 << 10, reason: "file too large", midRun: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, url := startEngineBinary(t)
			caller := dialCaller(t, url, "")
			want := map[string]string{}
			fillSkills(t, caller, stored, "stored", want)

			env := []string{}
			if tc.tmpdir != "" {
				env = append(env, "TMPDIR="+tc.tmpdir)
			}
			w := startLimitedWorker(t, env, tc.limitKiB, "--url", url)
			waitLine(t, w.loaded, "the worker never loaded its skills scope:\n"+w.log())

			fillSkills(t, caller, registered, "registered", want)
			checkServes(t, caller, want)

			rep := diagnose(t, caller)
			c := rep.Catalog
			if c == nil || c.Mode != "live" || c.Unloaded || c.Skills != len(want) {
				t.Fatalf("diagnostics catalog = %+v; want mode live, loaded, %d skills", c, len(want))
			}
			if !strings.Contains(c.BodyStore, "bodies kept in memory") || !strings.Contains(c.BodyStore, tc.reason) {
				t.Errorf("body_store = %q; want it to say the bodies are in memory because %q", c.BodyStore, tc.reason)
			}
			if c.HeapBodies <= 0 || c.HeapBytes <= 0 || c.HeapBytes > c.Bytes || tc.allHeap && (c.HeapBodies != len(want) || c.HeapBytes != c.Bytes) {
				t.Errorf("heap_bodies %d, heap_bytes %d of %d bytes kept; want some on the heap (all %d when the store never took one: %v)",
					c.HeapBodies, c.HeapBytes, c.Bytes, len(want), tc.allHeap)
			}
			const loadedLine, fellBackLine = `catalog loaded	{"scope": "skills"`, "the body store cannot be used"
			if loaded, fellBack := w.index(loadedLine), w.index(fellBackLine); fellBack < 0 || tc.midRun != (fellBack > loaded) {
				t.Errorf("the body store fell back at log line %d, the scope loaded at %d; want it to fall back %s the load", fellBack, loaded, map[bool]string{true: "after", false: "before"}[tc.midRun])
			}
			if loads, fails := w.count(`catalog loaded	{"scope": "skills"`), w.count("could not load a scope"); loads != 1 || fails != 0 {
				t.Errorf("the skills scope was loaded %d times, and failed to load %d times; want once, never:\n%s", loads, fails, w.log())
			}
		})
	}
}

// dialCaller is a client of the engine at url in namespace ns ("" or
// "default": the default one), for the test's calls.
func dialCaller(t *testing.T, url, ns string) *iii.Client {
	t.Helper()
	c := iii.New(iii.Options{URL: url, Name: "test-caller", Namespace: ns})
	startReady(t, c)
	return c
}

// startReady starts c, closed at the end of the test, and waits at most
// 10 s for its connection.
func startReady(t *testing.T, c *iii.Client) {
	t.Helper()
	c.Start()
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
}

// fillSkills writes n skills of 4 KiB, by 8 callers: before the worker
// starts, as state rows (state::set); after, through skills::register.
// Each body has a word of its own, for search. want gets each id's body.
func fillSkills(t *testing.T, c *iii.Client, n int, tag string, want map[string]string) {
	t.Helper()
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make(chan error, n)
	ids := make(chan int, n)
	for i := range n {
		ids <- i
	}
	close(ids)
	for range 8 {
		wg.Go(func() {
			for i := range ids {
				id := fmt.Sprintf("%s/s%04d", tag, i)
				body := fmt.Sprintf("# %s %d\n\nAbout %sword%d.\n\n", tag, i, tag, i)
				body += strings.Repeat("lorem ipsum ", 4096/12)[:4096-len(body)]
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				var err error
				if tag == "stored" {
					_, err = c.Call(ctx, "state::set", map[string]any{"scope": "skills", "key": id,
						"value": map[string]string{"id": id, "skill": body, "registered_at": "2026-12-02T00:00:00Z"}})
				} else {
					_, err = c.Call(ctx, "skills::register", map[string]string{"id": id, "skill": body})
				}
				cancel()
				if err != nil {
					errs <- fmt.Errorf("%s: %w", id, err)
					continue
				}
				mu.Lock()
				want[id] = body
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// checkServes checks that skills::list lists every skill of want, that
// every one reads back as written, and that search finds one of the first
// and one of the last written by their words.
func checkServes(t *testing.T, c *iii.Client, want map[string]string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var list struct {
		Skills []struct{ ID string }
	}
	callInto(ctx, t, c, "skills::list", map[string]any{}, &list)
	if len(list.Skills) != len(want) {
		t.Errorf("skills::list lists %d skills; want %d", len(list.Skills), len(want))
	}
	for id, body := range want {
		var read struct {
			Contents []struct{ Text string }
		}
		callInto(ctx, t, c, "skills::resources-read", map[string]string{"uri": "iii://" + id}, &read)
		if len(read.Contents) != 1 || read.Contents[0].Text != body {
			t.Fatalf("iii://%s reads %d contents, not its body as written", id, len(read.Contents))
		}
	}
	for _, id := range []string{"stored/s0007", "registered/s0599"} {
		var found struct {
			Results []struct{ ID string }
		}
		tag, n, _ := strings.Cut(id, "/s")
		i, _ := strconv.Atoi(n)
		word := fmt.Sprintf("%sword%d", tag, i)
		callInto(ctx, t, c, "skill::search", map[string]string{"query": word}, &found)
		if len(found.Results) == 0 || found.Results[0].ID != id {
			t.Errorf("skill::search %q = %+v; want %s first", word, found.Results, id)
		}
	}
}

// callInto calls functionID and decodes its result into out.
func callInto(ctx context.Context, t *testing.T, c *iii.Client, functionID string, data, out any) {
	t.Helper()
	res, err := c.Call(ctx, functionID, data)
	if err != nil {
		t.Fatalf("%s %v: %v", functionID, data, err)
	}
	if err := json.Unmarshal(res, out); err != nil {
		t.Fatalf("%s: %v in %.300s", functionID, err, res)
	}
}

// diagnose calls skills::diagnostics.
func diagnose(t *testing.T, c *iii.Client) diagnostics.Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var rep diagnostics.Report
	callInto(ctx, t, c, "skills::diagnostics", map[string]any{}, &rep)
	return rep
}

// limitedWorker is the worker binary with its whole log kept.
type limitedWorker struct {
	mu     sync.Mutex
	lines  []string
	loaded chan struct{} // closed when it logs that it loaded the skills scope
}

// startLimitedWorker starts the worker binary with env added and, when
// limitKiB is not 0, its files limited to that size (sh's ulimit -f, in
// blocks of 512 bytes). The process is killed at the end of the test.
func startLimitedWorker(t *testing.T, env []string, limitKiB int, args ...string) *limitedWorker {
	t.Helper()
	bin := skillsBinary(t)
	cmd := exec.Command(bin, args...)
	if limitKiB != 0 {
		cmd = exec.Command("sh", append([]string{"-c", fmt.Sprintf(`ulimit -f %d && exec "$0" "$@"`, 2*limitKiB), bin}, args...)...)
	}
	cmd.Env = append(append(os.Environ(), "HOME="+t.TempDir()), env...)
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &limitedWorker{loaded: make(chan struct{})}
	read := make(chan struct{})
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-read; _ = cmd.Wait() })
	go func() {
		defer close(read)
		scan := bufio.NewScanner(pipe)
		for scan.Scan() {
			w.mu.Lock()
			w.lines = append(w.lines, scan.Text())
			w.mu.Unlock()
			if strings.Contains(scan.Text(), `catalog loaded	{"scope": "skills"`) && w.count(`catalog loaded	{"scope": "skills"`) == 1 {
				close(w.loaded)
			}
		}
	}()
	return w
}

// count is how many lines of the log so far contain s.
func (w *limitedWorker) count(s string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, l := range w.lines {
		if strings.Contains(l, s) {
			n++
		}
	}
	return n
}

// index is the number of the first line of the log so far that contains
// s; -1: none.
func (w *limitedWorker) index(s string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, l := range w.lines {
		if strings.Contains(l, s) {
			return i
		}
	}
	return -1
}

// log is the log so far.
func (w *limitedWorker) log() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.lines, "\n")
}

// While a live catalog's load is in flight, skills::diagnostics says its
// skills are unloaded (the count is what was held before, here none),
// and stops saying so once the load ends (docs/decisions.md D79). The
// engine's state::list is replaced by the test's, which holds the first
// listing of the skills scope (the load's) until released, and answers
// the others (reads through to the engine, diagnostics' among them).
func TestDiagnosticsSayWhileTheSkillsAreUnloaded(t *testing.T) {
	srv := iiitest.NewServer(t)
	if err := srv.SetState("skills", "team/a", json.RawMessage(`{"id":"team/a","skill":"# A\n","registered_at":"2026-12-02T00:00:00Z"}`)); err != nil {
		t.Fatal(err)
	}
	asked, release := make(chan struct{}), make(chan struct{})
	var first sync.Once
	holder := iii.New(iii.Options{URL: srv.URL(), Name: "state-list-holder"})
	holder.RegisterFunction(iii.Function{ID: "state::list", Handler: func(ctx context.Context, req iii.Request) (any, error) {
		var in struct{ Scope string }
		if err := json.Unmarshal(req.Data, &in); err != nil {
			return nil, err
		}
		hold := false
		if in.Scope == "skills" {
			first.Do(func() { hold = true })
		}
		if hold {
			close(asked)
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return srv.StateValues(in.Scope), nil
	}})
	startReady(t, holder)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := srv.WaitWorker(ctx, "state-list-holder"); err != nil {
		t.Fatal(err)
	}
	startWorker(t, srv)
	caller := newCaller(t, srv)
	select {
	case <-asked:
	case <-ctx.Done():
		t.Fatal("the worker never listed its skills scope")
	}
	if c := diagnose(t, caller).Catalog; c == nil || c.Mode != "live" || !c.Unloaded || c.Skills != 0 {
		t.Errorf("diagnostics during the load: catalog %+v; want mode live, unloaded, 0 skills", c)
	}
	close(release)
	for {
		c := diagnose(t, caller).Catalog
		if c != nil && !c.Unloaded {
			if c.Mode != "live" || c.Skills != 1 {
				t.Errorf("diagnostics after the load: catalog %+v; want mode live, 1 skill", c)
			}
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("diagnostics still say unloaded after the load was released: %+v", c)
		case <-time.After(10 * time.Millisecond): // polling a call: the report decides, not the sleep
		}
	}
}
