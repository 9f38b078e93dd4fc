package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/diagnostics"
	"github.com/iii-hq/skills-go/internal/fsource"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/mcpskills"
	"github.com/iii-hq/skills-go/internal/search"
)

// The content view against a rebuild from scratch (docs/data-path.md#the-content-view):
// random sequences of registrations, unregistrations, file writes, in-place
// edits, same-size-same-mtime replacements, deletes, renames and root
// folders added and removed. After every step every surface of a worker
// that has followed the whole sequence (its view, its caches, its watch,
// its search index, its catalog mirror when it has one) must answer
// exactly as a registry built now over the same state and files, and the
// on-change events fired must be exactly those of what the step changed.
//
// With watch=kernel (Linux, where the watch owns the inotify queue, D68)
// nothing rescans after a change but the next listing: the watch's own
// loop waits an hour, and the first skills::list after each step, checked
// against the rebuild before anything else, must see every write, in-place
// edit, replacement, rename and removal by itself.
func TestViewMatchesARebuildFromScratch(t *testing.T) {
	watches := []string{"rescan"}
	if runtime.GOOS == "linux" {
		watches = append(watches, "kernel")
	}
	for _, watch := range watches {
		for _, mirrored := range []bool{false, true} {
			for seed := uint64(1); seed <= 4; seed++ {
				t.Run(fmt.Sprintf("watch=%s/mirror=%v/seed=%d", watch, mirrored, seed), func(t *testing.T) {
					d := newDiffWorld(t, mirrored, seed, watch == "kernel")
					for step := range 40 {
						what, want := d.randomStep()
						d.check(fmt.Sprintf("step %d (%s)", step, what), want)
					}
				})
			}
		}
	}
}

// diffWorld is one worker followed through a sequence, and what the
// sequence has done.
type diffWorld struct {
	t       *testing.T
	rnd     *rand.Rand
	dir     string
	f       *fixture
	watch   *fsource.Watch
	mcp     *mcpskills.Extension // over f.reg's view, kept across steps
	search  *search.Searcher     // likewise: its index is kept up to date, never rebuilt
	kernel  bool                 // only listings rescan, from the kernel's queue (D68)
	mu      sync.Mutex
	changes [][2]fsource.Snapshot // rescans not yet announced (announce)
	stored  map[string]bool       // ids registered now
	bodies  map[string]string     // the body each stored id was registered with
	fns     []iii.Function        // f.reg's functions, whose answers are kept encoded
	seen    int                   // skill events already checked
	serial  int
}

var diffIDs = []string{"alpha", "beta", "gamma", "delta", "alpha/notes"}

func newDiffWorld(t *testing.T, mirrored bool, seed uint64, kernel bool) *diffWorld {
	dir := t.TempDir()
	d := &diffWorld{t: t, rnd: rand.New(rand.NewPCG(seed, 7)), dir: dir, stored: map[string]bool{}, bodies: map[string]string{}, kernel: kernel}
	src := d.source()
	d.f = &fixture{engine: newFakeEngine(), skillEvents: &fakeNotifier{}, promptEvents: &fakeNotifier{}, ctx: t.Context()}
	var mirror *catalog.Scope
	if mirrored {
		mirror = catalog.NewSkillsScope("skills", 1<<20)
		mirror.BeginLoad()
		mirror.EndLoad(nil) // loaded, empty: the worker's own writes keep it current
	}
	opts := fsource.WatchOptions{ForcePoll: true, PollInterval: time.Hour,
		OnChange: d.queueChange}
	if kernel {
		opts.ForcePoll, opts.CoalesceWindow = false, time.Hour
	}
	d.watch = fsource.NewWatch(src, opts)
	d.f.reg = New(Config{FS: src, FSWatch: d.watch, FSCacheBytes: 1 << 20, Caller: d.f.engine, SkillsMirror: mirror,
		SkillsChanged: d.f.skillEvents, PromptsChanged: d.f.promptEvents, StateTimeout: 2 * time.Second,
		Now: func() time.Time { return fixedNow }})
	d.fns = d.f.reg.Functions()
	d.mcp = mcpskills.New(mcpskills.Config{View: d.f.reg.View()})
	d.search = search.NewSearcher(search.SearcherConfig{View: d.f.reg.View()})
	d.watch.Start(t.Context())
	t.Cleanup(d.watch.Close)
	if kernel && d.watch.Mode() != fsource.ModeFSNotify {
		t.Fatalf("watch mode %s, want fsnotify (the kernel's queue)", d.watch.Mode())
	}
	return d
}

// source is the worker's config: one glob, two roots.
func (d *diffWorld) source() *fsource.Source {
	return fsource.New(d.dir, []string{"fs-skills/**/*.md"}, nil, fsource.Roots("roots/a", "roots/b"))
}

// randomStep does one random thing and returns what it did and the skill
// events it must fire.
func (d *diffWorld) randomStep() (string, []string) {
	id := diffIDs[d.rnd.IntN(len(diffIDs))]
	files := d.globFiles()
	folders := d.rootFolders()
	switch op := d.rnd.IntN(10); {
	case op == 9 && len(d.bodies) > 0:
		// Registered again as it stands (the clock is fixed): the content,
		// and so every answer kept for it, is unchanged.
		again := slices.Sorted(maps.Keys(d.bodies))[d.rnd.IntN(len(d.bodies))]
		d.mustRegister(again, d.bodies[again])
		return "register " + again + " again as it stands", []string{fmt.Sprintf(`{"op":"register","id":%q}`, again)}
	case op == 0 || op == 9:
		d.mustRegister(id, d.body(id))
		return "register " + id, []string{fmt.Sprintf(`{"op":"register","id":%q}`, id)}
	case op == 1:
		removed := d.stored[id]
		if _, err := d.f.reg.unregisterSkill(d.f.ctx, unregisterSkillInput{ID: id}); err != nil {
			d.t.Fatal(err)
		}
		delete(d.stored, id)
		delete(d.bodies, id)
		if !removed {
			return "unregister absent " + id, nil
		}
		return "unregister " + id, []string{fmt.Sprintf(`{"op":"unregister","id":%q}`, id)}
	case op == 2 || (len(files) == 0 && op <= 6):
		return d.fsStep("write "+id, func() { d.write(filepath.Join("fs-skills", id+".md"), d.body(id)) }, filepath.Join("fs-skills", id+".md"))
	case op == 3:
		p := files[d.rnd.IntN(len(files))]
		return d.fsStep("edit "+p, func() { d.write(p, d.body(p)+strings.Repeat("\nMore.", 1+d.rnd.IntN(3))) }, p)
	case op == 4:
		all := append(slices.Clone(files), d.rootSkillFiles()...)
		p := all[d.rnd.IntN(len(all))]
		return d.fsStep("replace "+p, func() { d.replaceSameSizeAndMTime(p) }, p)
	case op == 5:
		p := files[d.rnd.IntN(len(files))]
		return d.fsStep("delete "+p, func() { must(d.t, os.Remove(filepath.Join(d.dir, p))) }, p)
	case op == 6:
		p, to := files[d.rnd.IntN(len(files))], filepath.Join("fs-skills", id+".md")
		if p == to {
			return d.fsStep("rename "+p+" to itself", func() {}) // nothing changes
		}
		return d.fsStep("rename "+p+" to "+to, func() {
			must(d.t, os.MkdirAll(filepath.Dir(filepath.Join(d.dir, to)), 0o755))
			must(d.t, os.Rename(filepath.Join(d.dir, p), filepath.Join(d.dir, to)))
		}, p, to)
	case op == 7 || len(folders) == 0:
		root := []string{"roots/a", "roots/b"}[d.rnd.IntN(2)]
		name := strings.ReplaceAll(id, "/", "-")
		folder := filepath.Join(root, name)
		return d.fsStep("add folder "+folder, func() {
			d.write(filepath.Join(folder, "SKILL.md"), fmt.Sprintf("---\nname: %s\ndescription: The %s folder skill, %d.\n---\n# %s folder\n\nBody %d.\n", name, name, d.next(), name, d.next()))
			d.write(filepath.Join(folder, "references", "guide.md"), fmt.Sprintf("# Guide %d\n\nSee the skill.\n", d.next()))
		}, filepath.Join(folder, "SKILL.md"), filepath.Join(folder, "references", "guide.md"))
	default:
		folder := folders[d.rnd.IntN(len(folders))]
		return d.fsStep("remove folder "+folder, func() { must(d.t, os.RemoveAll(filepath.Join(d.dir, folder))) },
			filepath.Join(folder, "SKILL.md"), filepath.Join(folder, "references", "guide.md"))
	}
}

// queueChange is the watch's OnChange: as the worker's fan-out does, it
// only queues the pair, since OnChange runs under the watch's scan lock
// and FSChanged reads a listing, which may rescan (docs/data-path.md).
func (d *diffWorld) queueChange(old, updated fsource.Snapshot) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.changes = append(d.changes, [2]fsource.Snapshot{old, updated})
}

// announce hands every queued rescan to FSChanged, in order, as the
// worker's fan-out goroutine does after the rescan returned.
func (d *diffWorld) announce() {
	for {
		d.mu.Lock()
		queued := d.changes
		d.changes = nil
		d.mu.Unlock()
		if len(queued) == 0 {
			return
		}
		for _, c := range queued {
			d.f.reg.FSChanged(context.Background(), c[0], c[1])
		}
	}
}

// fsStep changes files, lets the watch see it (as fsnotify would make it
// rescan; with d.kernel, nothing: the next listing must), and returns the
// events the change must fire: for each id the
// files serve, before or after, that no stored skill holds, a register
// if it appeared or its file is another or was touched, an unregister if
// it went. The files served are read by a fresh scan, not the worker's.
func (d *diffWorld) fsStep(what string, change func(), touched ...string) (string, []string) {
	before := d.winners()
	change()
	if !d.kernel {
		d.watch.Rescan(d.f.ctx)
		d.announce()
	}
	after := d.winners()
	touch := map[string]bool{}
	for _, p := range touched {
		touch[filepath.Join(d.dir, p)] = true
	}
	var want []string
	for _, sk := range d.source().Scan(context.Background()).Skills {
		prev, existed := before[sk.ID]
		if !d.stored[sk.ID] && (!existed || prev != sk.Path || touch[sk.Path]) {
			want = append(want, fmt.Sprintf(`{"op":"register","id":%q,"source":"fs"}`, sk.ID))
		}
	}
	for _, id := range slices.Sorted(mapKeys(before)) {
		if _, ok := after[id]; !ok && !d.stored[id] {
			want = append(want, fmt.Sprintf(`{"op":"unregister","id":%q,"source":"fs"}`, id))
		}
	}
	return what, want
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// winners maps each id the files serve to its file.
func (d *diffWorld) winners() map[string]string {
	out := map[string]string{}
	for _, sk := range d.source().Scan(context.Background()).Skills {
		out[sk.ID] = sk.Path
	}
	return out
}

func (d *diffWorld) next() int { d.serial++; return d.serial }

// body is a fresh body for a skill; one in three is an Agent Skill with
// frontmatter.
func (d *diffWorld) body(what string) string {
	n := d.next()
	word := []string{"backup", "deploy", "invoice", "certificate", "kubernetes"}[d.rnd.IntN(5)]
	if d.rnd.IntN(3) == 0 {
		return fmt.Sprintf("---\nname: x%d\ndescription: Handles %s work, version %d.\n---\n# Skill %d\n\nAbout %s.\n", n, word, n, n, word)
	}
	return fmt.Sprintf("# Skill %d\n\n%s for %s, version %d.\n", n, word, what, n)
}

func (d *diffWorld) mustRegister(id, body string) {
	d.t.Helper()
	if _, err := d.f.reg.registerSkill(d.f.ctx, registerSkillInput{ID: id, Skill: body}); err != nil {
		d.t.Fatal(err)
	}
	d.stored[id] = true
	d.bodies[id] = body
}

// write writes a file with an mtime an hour old, so the worker's caches
// keep what they read of it (nothing is kept of a file written in the
// last two seconds).
func (d *diffWorld) write(rel, content string) {
	d.t.Helper()
	writeOld(d.t, filepath.Join(d.dir, rel), content)
}

// replaceSameSizeAndMTime renames over a file another of its size and
// mtime (as cp -p and rsync do), its letters rotated.
func (d *diffWorld) replaceSameSizeAndMTime(rel string) {
	d.t.Helper()
	full := filepath.Join(d.dir, rel)
	b, err := os.ReadFile(full)
	must(d.t, err)
	fi, err := os.Stat(full)
	must(d.t, err)
	out := []byte(strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r < 'z':
			return r + 1
		case r == 'z':
			return 'a'
		}
		return r
	}, string(b)))
	if strings.HasPrefix(string(b), "---\nname: ") { // keep an Agent Skill's name, which names its folder
		front, _, _ := strings.Cut(string(b), "\ndescription:")
		out = append([]byte(front), out[len(front):]...)
	}
	tmp := full + ".new"
	must(d.t, os.WriteFile(tmp, out, 0o644))
	must(d.t, os.Chtimes(tmp, fi.ModTime(), fi.ModTime()))
	must(d.t, os.Rename(tmp, full))
}

func (d *diffWorld) globFiles() []string {
	var out []string
	for _, id := range diffIDs {
		p := filepath.Join("fs-skills", id+".md")
		if _, err := os.Stat(filepath.Join(d.dir, p)); err == nil {
			out = append(out, p)
		}
	}
	return out
}

func (d *diffWorld) rootFolders() []string {
	var out []string
	for _, root := range []string{"roots/a", "roots/b"} {
		entries, _ := os.ReadDir(filepath.Join(d.dir, root))
		for _, e := range entries {
			out = append(out, filepath.Join(root, e.Name()))
		}
	}
	return out
}

func (d *diffWorld) rootSkillFiles() []string {
	var out []string
	for _, f := range d.rootFolders() {
		out = append(out, filepath.Join(f, "SKILL.md"), filepath.Join(f, "references", "guide.md"))
	}
	return out
}

// check compares every surface with a registry built now over the same
// state and files, and the events fired with want.
func (d *diffWorld) check(step string, want []string) {
	t := d.t
	t.Helper()
	fresh := New(Config{FS: d.source(), Caller: d.f.engine, StateTimeout: 2 * time.Second, Now: func() time.Time { return fixedNow }})
	ctx := d.f.ctx
	if d.kernel {
		// The next listing after the change, with no rescan before it.
		gotL, gotErr := d.f.reg.listSkills(ctx, listSkillsInput{})
		wantL, wantErr := fresh.listSkills(ctx, listSkillsInput{})
		if gotErr != nil || wantErr != nil {
			t.Fatalf("%s: skills::list: %v; of the rebuild: %v", step, gotErr, wantErr)
		}
		if diff := cmp.Diff(jsonOf(t, wantL), jsonOf(t, gotL)); diff != "" {
			t.Fatalf("%s: the first skills::list after the change differs from a rebuild (-rebuild +worker):\n%s", step, diff)
		}
		d.announce() // the events of the rescan that listing made
	}
	events := d.f.skillEvents.fired()
	got := events[d.seen:]
	d.seen = len(events)
	slices.Sort(got)
	slices.Sort(want)
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("%s: on-change events (-want +got):\n%s", step, diff)
	}

	surfaces := []struct {
		name string
		get  func(r *Registry) (any, error)
	}{
		{"skills::list", func(r *Registry) (any, error) { return r.listSkills(ctx, listSkillsInput{}) }},
		{"the index", func(r *Registry) (any, error) { return r.index(ctx), nil }},
		{"resources-list", func(r *Registry) (any, error) { return r.resourcesList(ctx, listInput{}) }},
		{"the MCP skills list", func(r *Registry) (any, error) {
			ext := d.mcp
			if r != d.f.reg {
				ext = mcpskills.New(mcpskills.Config{View: r.View()})
			}
			return callFunction(ctx, ext.Functions(), contract.FnMCPSkillsList, `{}`)
		}},
		{"skill::search", func(r *Registry) (any, error) {
			searcher := d.search
			if r != d.f.reg {
				searcher = search.NewSearcher(search.SearcherConfig{View: r.View()})
			}
			var out []contract.SearchResults
			for _, q := range []string{"backup", "deploy invoice", "certificate", "kubernetes", "folder skill guide", "skill"} {
				res, err := searcher.Search(ctx, search.Request{Query: q, Limit: 50})
				if err != nil {
					return nil, err
				}
				out = append(out, res)
			}
			return out, nil
		}},
		{"diagnostics", func(r *Registry) (any, error) {
			rep := diagnostics.New(diagnostics.Config{View: r.View()}).Diagnose(ctx)
			return struct{ Files, Roots any }{rep.Files, rep.Roots}, nil
		}},
	}
	for _, s := range surfaces {
		gotV, err := s.get(d.f.reg)
		if err != nil {
			t.Fatalf("%s: %s: %v", step, s.name, err)
		}
		wantV, err := s.get(fresh)
		if err != nil {
			t.Fatalf("%s: %s of the rebuild: %v", step, s.name, err)
		}
		if diff := cmp.Diff(jsonOf(t, wantV), jsonOf(t, gotV)); diff != "" {
			t.Fatalf("%s: %s differs from a rebuild (-rebuild +worker):\n%s", step, s.name, diff)
		}
	}
	list, err := fresh.listSkills(ctx, listSkillsInput{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range list.Skills {
		uri := Scheme + e.ID
		_, wantText, _, wantErr := fresh.read(ctx, uri)
		_, gotText, _, gotErr := d.f.reg.read(ctx, uri)
		if wantText != gotText || fmt.Sprint(wantErr) != fmt.Sprint(gotErr) {
			t.Fatalf("%s: resources-read %s = %q, %v; a rebuild reads %q, %v", step, uri, gotText, gotErr, wantText, wantErr)
		}
	}
	// The answers the worker keeps encoded are byte for byte a fresh
	// rendering's (encoded.go).
	index := IndexURI
	for _, c := range []struct {
		id, payload string
		fresh       func() (any, error)
	}{
		{contract.FnSkillsList, `{}`, func() (any, error) { return fresh.listSkills(ctx, listSkillsInput{}) }},
		{contract.FnSkillsResourcesRead, `{"uri":"iii://skills"}`, func() (any, error) {
			return fresh.resourcesRead(ctx, readResourceInput{URI: &index})
		}},
	} {
		gotV, err := callFunction(ctx, d.fns, c.id, c.payload)
		if err != nil {
			t.Fatalf("%s: %s: %v", step, c.id, err)
		}
		wantV, err := c.fresh()
		if err != nil {
			t.Fatalf("%s: %s of the rebuild: %v", step, c.id, err)
		}
		gotB, gotErr := iii.EncodeResult(gotV)
		wantB, wantErr := iii.EncodeResult(wantV)
		if gotErr != nil || wantErr != nil || !bytes.Equal(gotB, wantB) {
			t.Fatalf("%s: %s answers\n%s (%v)\na rebuild encodes\n%s (%v)", step, c.id, gotB, gotErr, wantB, wantErr)
		}
	}
	// Reads bring nothing new: the view was already current.
	if n := len(d.f.skillEvents.fired()); n != d.seen {
		t.Fatalf("%s: reads fired %d events: %v", step, n-d.seen, d.f.skillEvents.fired()[d.seen:])
	}
}

func jsonOf(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// callFunction invokes the function id among fns with payload, as the
// engine would, and returns its output.
func callFunction(ctx context.Context, fns []iii.Function, id, payload string) (any, error) {
	for _, fn := range fns {
		if fn.ID == id {
			return fn.Handler(ctx, iii.Request{FunctionID: id, Data: json.RawMessage(payload)})
		}
	}
	return nil, fmt.Errorf("no function %s", id)
}
