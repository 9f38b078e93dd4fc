// Package roots is the upstream worker's v0.3 roots surface
// (docs/decisions.md D32, D48, docs/reference.md#roots): a discovery index
// of the SKILL.md files under the roots, with raw JSON in and out (no
// schemas), over the content view's files. Two deliberate differences
// from upstream: ids come from folders (D30), not a frontmatter id, and
// an earlier root wins an id over a later one.
package roots

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/lint"
	"github.com/iii-hq/skills-go/internal/skillmd"
)

// The roots functions' descriptions, as upstream registered them.
const (
	descRootsIndex  = "Slim list { id, title, description, path }[] of every SKILL.md discovered across configured roots. No body in the response."
	descRootsLoad   = "Read the full SKILL.md body for one discovered id. Returns { id, title, description, path, body }."
	descRootsRescan = "Re-walk the configured roots and rebuild the in-memory index. Returns the new count."
)

// Roots answers the roots functions. With roots in the config it reads
// the view's files (watched, so always current); without, it keeps its
// own scan of config.UpstreamDefaultRoots, made on first use and replaced by
// rescan, as upstream did. Its handlers may run concurrently.
type Roots struct {
	view       *catalog.View
	configured bool

	mu      sync.Mutex
	src     *catalog.RootScan // over config.UpstreamDefaultRoots; nil when configured
	cached  []catalog.FileSkill
	scanned bool
}

// fileReader reads a listed file: the view, or a RootScan for roots
// apart from it.
type fileReader interface {
	ReadFile(path string) ([]byte, error)
	ReadBody(path string) (string, error)
}

// Config is what Roots needs.
type Config struct {
	// View is the content view whose files the roots are; required.
	View *catalog.View
	// Configured says the config has a roots key: the functions then read
	// the view's roots; without it they scan config.UpstreamDefaultRoots.
	Configured bool
}

// New returns the roots functions over cfg.View. It panics if the view is
// nil: that is a wiring mistake, caught at start-up.
func New(cfg Config) *Roots {
	if cfg.View == nil {
		panic("roots: Config.View is required")
	}
	return &Roots{view: cfg.View, configured: cfg.Configured}
}

// rootEntry is one SKILL.md in the index; keys in upstream's order
// (alphabetical, from a JSON map).
type rootEntry struct {
	Description string `json:"description"`
	ID          string `json:"id"`
	Path        string `json:"path"`
	Title       string `json:"title"`
}

type rootsIndexOutput struct {
	Count  int         `json:"count"`
	Skills []rootEntry `json:"skills"`
}

type rootLoadOutput struct {
	Body        string `json:"body"`
	Description string `json:"description"`
	ID          string `json:"id"`
	Path        string `json:"path"`
	Title       string `json:"title"`
}

type rootsCount struct {
	Count int `json:"count"`
}

// Functions returns the three roots functions, in registration order.
func (r *Roots) Functions() []iii.Function {
	raw := func(id, desc string, h func(context.Context, json.RawMessage) (any, error)) iii.Function {
		return iii.Function{ID: id, Description: desc, Handler: func(ctx context.Context, req iii.Request) (any, error) {
			return h(ctx, req.Data)
		}}
	}
	return []iii.Function{
		raw(contract.FnRootsIndex, descRootsIndex, r.rootsIndexFn),
		raw(contract.FnRootsLoad, descRootsLoad, r.rootsLoadFn),
		raw(contract.FnRootsRescan, descRootsRescan, r.rootsRescanFn),
	}
}

// rootsPayload is the payload the roots functions read; anything that is
// not an object is treated as {} (upstream read fields off a JSON value).
type rootsPayload struct {
	Filter *string `json:"filter"`
	Roots  []any   `json:"roots"`
	ID     any     `json:"id"`
}

func decodeRootsPayload(data json.RawMessage) rootsPayload {
	var p rootsPayload
	_ = json.Unmarshal(data, &p)
	return p
}

// rootStrings keeps the string entries of a roots list.
func rootStrings(list []any) []string {
	var out []string
	for _, v := range list {
		if s, ok := v.(string); ok && strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}

func (r *Roots) rootsIndexFn(ctx context.Context, data json.RawMessage) (any, error) {
	p := decodeRootsPayload(data)
	var skills []catalog.FileSkill
	var src fileReader // what listed them, which reads them
	if given := rootStrings(p.Roots); len(given) > 0 {
		// A fresh scan of the roots asked for, if they are the worker's
		// to read; the index is untouched.
		scan, err := r.givenRoots(given)
		if err != nil {
			return nil, err
		}
		skills, src = scan.Skills(ctx), scan
	} else {
		skills, src = r.rootSkills(ctx, false)
	}
	filter := ""
	if p.Filter != nil {
		filter = strings.ToLower(*p.Filter)
	}
	out := rootsIndexOutput{Skills: []rootEntry{}}
	for _, sk := range skillFiles(skills) {
		if r.withheld(src, sk) {
			continue
		}
		e := rootEntryOf(sk, src.ReadBody)
		if filter != "" && !strings.Contains(strings.ToLower(e.ID), filter) &&
			!strings.Contains(strings.ToLower(e.Title), filter) && !strings.Contains(strings.ToLower(e.Description), filter) {
			continue
		}
		out.Skills = append(out.Skills, e)
	}
	out.Count = len(out.Skills)
	return out, nil
}

func (r *Roots) rootsLoadFn(ctx context.Context, data json.RawMessage) (any, error) {
	id, ok := decodeRootsPayload(data).ID.(string)
	if !ok {
		return nil, contract.Invalidf("missing required field: id")
	}
	find := func(skills []catalog.FileSkill) (catalog.FileSkill, bool) {
		i := slices.IndexFunc(skills, func(s catalog.FileSkill) bool { return s.SkillFile && s.ID == id })
		if i < 0 {
			return catalog.FileSkill{}, false
		}
		return skills[i], true
	}
	skills, src := r.rootSkills(ctx, false)
	sk, found := find(skills)
	if !found {
		skills, src = r.rootSkills(ctx, true) // upstream rescans once on a miss
		sk, found = find(skills)
	}
	if !found {
		return nil, contract.NotFoundf("skill not found: %s", ids.Unquoted(id))
	}
	raw, err := src.ReadFile(sk.Path)
	if err != nil {
		return nil, contract.UnavailableMsg(fmt.Errorf("read failed: %s — %v", sk.Path, err))
	}
	if err := r.view.RefuseFile(sk.ID, raw); err != nil {
		return nil, err
	}
	_, body, _ := skillmd.SplitFrontmatter(raw)
	e := rootEntryOf(sk, src.ReadBody)
	return rootLoadOutput{Body: strings.TrimLeft(string(body), "\r\n"), Description: e.Description, ID: e.ID, Path: e.Path, Title: e.Title}, nil
}

// rootsRescanFn rescans the roots in effect. Roots in the payload are
// checked like index's and counted, but never replace the roots other
// callers see (docs/decisions.md D48).
func (r *Roots) rootsRescanFn(ctx context.Context, data json.RawMessage) (any, error) {
	var given *catalog.RootScan
	if dirs := rootStrings(decodeRootsPayload(data).Roots); len(dirs) > 0 {
		var err error
		if given, err = r.givenRoots(dirs); err != nil {
			return nil, err
		}
	}
	skills, _ := r.rootSkills(ctx, true)
	if given != nil {
		skills = given.Skills(ctx)
	}
	return rootsCount{Count: len(skillFiles(skills))}, nil
}

// givenRoots is a source over roots a caller named, once each lies inside
// a root the worker reads (the configured roots, else upstream's
// defaults) or an allow_paths directory, links resolved: a caller on the
// bus reads nothing the operator did not name (docs/decisions.md D48).
func (r *Roots) givenRoots(given []string) (*catalog.RootScan, error) {
	src := r.view.ScanRoots(given...)
	var allowed []string
	if r.configured {
		allowed = r.view.RootDirs()
	} else {
		allowed = r.view.ScanRoots(config.UpstreamDefaultRoots...).RootDirs()
	}
	allowed = append(allowed, r.view.AllowDirs()...)
	for _, dir := range src.RootDirs() {
		if !insideAny(dir, allowed) {
			what := "no roots are configured and allow_paths is empty"
			if len(allowed) > 0 {
				what = "folders inside " + strings.Join(allowed, ", ")
			}
			return nil, contract.Forbiddenf("root %s is outside the roots this worker reads; allowed: %s (the roots and allow_paths config keys)", ids.Quote(dir), what)
		}
	}
	return src, nil
}

// insideAny reports whether dir, links resolved where it exists, lies in
// or below one of dirs (each resolved likewise).
func insideAny(dir string, dirs []string) bool {
	real := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	d := real(dir)
	for _, a := range dirs {
		a = real(a)
		if d == a || strings.HasPrefix(d, strings.TrimSuffix(a, string(filepath.Separator))+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// rootSkills lists the skills under the roots, with the source that
// listed them (whose reads check containment against those roots): the
// overlay's when roots are configured (rescan forces a scan of the
// watched tree), else the default roots' cached scan (rescan replaces
// it).
func (r *Roots) rootSkills(ctx context.Context, rescan bool) ([]catalog.FileSkill, fileReader) {
	if r.configured {
		if rescan {
			r.view.Refresh(ctx)
		}
		return r.view.Files(ctx).Skills, r.view
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.src == nil {
		r.src = r.view.ScanRoots(config.UpstreamDefaultRoots...)
	}
	if !r.scanned || rescan {
		r.cached = r.src.Skills(ctx)
		r.scanned = true
	}
	return r.cached, r.src
}

// skillFiles keeps the SKILL.md of each folder under a root, by id.
func skillFiles(skills []catalog.FileSkill) []catalog.FileSkill {
	var out []catalog.FileSkill
	for _, s := range skills {
		if s.SkillFile && s.Root != "" {
			out = append(out, s)
		}
	}
	return out
}

// withheld reports whether lint.flagged withholds the file sk: the roots
// functions list what the view would (docs/decisions.md D65).
func (r *Roots) withheld(src fileReader, sk catalog.FileSkill) bool {
	if r.view.Flagged() != lint.Withhold {
		return false
	}
	raw, err := src.ReadFile(sk.Path)
	return err == nil && r.view.RefuseFile(sk.ID, raw) != nil
}

// rootEntryOf is a SKILL.md as the roots functions show it: its title is
// the body's first "# " heading, else the frontmatter name, else the id
// (D31).
func rootEntryOf(sk catalog.FileSkill, readBody func(string) (string, error)) rootEntry {
	fallback := sk.Name
	if fallback == "" {
		fallback = sk.ID
	}
	title := fallback
	if body, err := readBody(sk.Path); err == nil {
		title = skillmd.TitleOr(body, fallback)
	}
	return rootEntry{Description: sk.Description, ID: sk.ID, Path: sk.Path, Title: title}
}
