package catalog

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/fsource"
	"github.com/iii-hq/skills-go/internal/lint"
	"github.com/iii-hq/skills-go/internal/offered"
	"github.com/iii-hq/skills-go/internal/requires"
	"github.com/iii-hq/skills-go/internal/skillmd"
	"github.com/iii-hq/skills-go/internal/usage"
)

// The view (docs/data-path.md#the-content-view) is the one merged picture
// of the skills the worker serves: the stored rows, then the files the
// globs match, then the skill folders under the roots, in that
// precedence; an id is served by the first origin that has it. Every
// surface that lists skills (the index, skills::list, resources-list,
// skill::search, the MCP Skills extension, diagnostics) reads a Listing
// from it, so they cannot disagree; nothing else merges state and files.

// Origins of a view entry, as skills::list names them.
const (
	OriginState = "state"
	OriginFS    = "fs"
)

// Meta is what the view knows of a skill's content, whatever its origin.
type Meta struct {
	// Name and Description are the frontmatter's (skillmd.Parse).
	Name, Description string
	// Summary is the title and index description.
	Summary skillmd.Summary
	// Size is the byte count a listing reports: the registered body, or
	// the whole file with its frontmatter.
	Size int64
	// SHA256 is the hex digest of those bytes; "" for a file that could
	// not be read.
	SHA256 string
	// Lint is what the content checks found in those bytes (lint.Check,
	// docs/decisions.md D65); nil when nothing. It follows from the bytes,
	// so two Metas with one SHA256 have the same findings (sameSkills).
	Lint *lint.Report
	// Requires is what the content needs of the live engine
	// (requires.Of, docs/decisions.md D85); nil when nothing. It too
	// follows from the bytes.
	Requires *requires.Set
}

// MetaOf is the Meta of the skill id whose stored body is text. Its
// strings own their bytes: the title and description are cut from text,
// and a summary kept for every skill must not keep every body alive
// through them, or a body dropped from the cache would stay in memory
// and cache_bytes would bound nothing (docs/decisions.md D54).
func MetaOf(id, text string) Meta {
	d := skillmd.Parse(text)
	sum := skillmd.Summarize(id, d)
	sum.Title, sum.Desc = strings.Clone(sum.Title), strings.Clone(sum.Desc)
	return Meta{Name: d.Name, Description: d.Description, Summary: sum,
		Size: int64(len(text)), SHA256: sha256Hex(readOnlyBytes(text)), Lint: lint.Check(text),
		Requires: requires.Of(text)}
}

// Skill is one entry of the view.
type Skill struct {
	ID     string
	Origin string // OriginState or OriginFS
	// RegisteredAt is the row's registered_at, or for a file its mtime
	// in the same layout ("" when unknown).
	RegisteredAt string
	// Revision is a stored skill's revision (docs/decisions.md D83); 0
	// for a file or a row written before D83.
	Revision int64
	Meta
	// Unavailable is what the skill requires that the engine does not
	// offer now (D85); nil when it is available.
	Unavailable *contract.Missing
	// File is the listed file of an fs entry (its path, root and Stamp).
	File fsource.Skill
}

// Listing is the view at one version.
type Listing struct {
	Skills   []Skill          // sorted by id; one entry per id
	Withheld []Skill          // flagged entries lint.flagged withholds, sorted by id (D65)
	Hidden   []Skill          // unavailable entries unavailable: hide leaves out, sorted by id (D85)
	Shadowed []fsource.Skill  // files whose id a stored row serves
	Skips    []fsource.Skip   // files not served, and files served with a warning
	Files    fsource.Snapshot // the file scan the listing was built from
	key      viewKey          // the versions it was built from
	gen      uint64           // its content's generation (View.Skills)
	keyed    bool
}

// Version identifies the listing's content when it can be known without
// reading it: equal versions, equal listings. ok is false when the
// stored rows were read through (the engine has no state trigger). It
// names the content, not the change that led to it: a write that leaves
// every entry as it was (a row written again as it stood, a key read
// again after its event) keeps the version, so what the surfaces render
// from a listing stays cached (docs/decisions.md D53).
func (l Listing) Version() (key any, ok bool) { return l.gen, l.keyed }

// Skill returns the entry with that id.
func (l Listing) Skill(id string) (Skill, bool) { return skillByID(l.Skills, id) }

// HiddenSkill returns the entry with that id that unavailable: hide
// leaves out (D85).
func (l Listing) HiddenSkill(id string) (Skill, bool) { return skillByID(l.Hidden, id) }

// skillByID finds id in entries sorted by id.
func skillByID(entries []Skill, id string) (Skill, bool) {
	i, ok := slices.BinarySearchFunc(entries, id, func(s Skill, id string) int { return strings.Compare(s.ID, id) })
	if !ok {
		return Skill{}, false
	}
	return entries[i], true
}

// viewKey is the versions a listing was built from: the stored rows, the
// file scan and the engine's function list (D85).
type viewKey struct{ state, fs, fns uint64 }

// ViewConfig is what a View reads.
type ViewConfig struct {
	// Skills and Prompts are the catalog's scopes of skill and prompt rows
	// (NewSkillsScope, NewPromptsScope); nil reads every call through.
	Skills, Prompts *Scope
	// Caller, SkillsScope, PromptsScope and Timeout reach the rows in
	// state: every write, and every read the scopes cannot vouch for.
	Caller                    Caller
	SkillsScope, PromptsScope string
	Timeout                   time.Duration
	// Source is the files; Watch, when set, is a started watch over it.
	// Without a watch every listing scans.
	Source *fsource.Source
	Watch  *fsource.Watch
	// BodyCacheBytes bounds the file bodies kept in memory (each checked
	// against its file's Stamp on every read); 0 keeps none.
	BodyCacheBytes int64
	// Flagged is what the view does with content the lint flags
	// (lint.flagged, docs/decisions.md D65); "" is lint.DefaultMode.
	Flagged lint.Mode
	// Usage counts what the surfaces serve, by id and stage (D84); nil
	// gives the view a counter of its own.
	Usage *usage.Counter
	// RevisionsKept is how many bodies per stored skill its history keeps
	// (revisions_kept, docs/decisions.md D83); 0 keeps no history.
	RevisionsKept int
	// Functions is the engine's function list, against which each
	// skill's requirements are judged (D85); nil judges none unavailable.
	Functions *offered.Functions
	// Unavailable is what the view does with a skill whose requirements
	// are not met (the config key unavailable); "" is requires.Mark.
	Unavailable requires.Mode
}

// View merges the stored skills with the files. It is safe for
// concurrent use.
type View struct {
	skills, prompts       *Scope
	skillRows, promptRows store
	skillLog, promptLog   *revisionLog // the history scopes (history.go, D83)
	src                   *fsource.Source
	watch                 *fsource.Watch
	readThrough           *rowCache
	skillMetas            *byStamp[Meta]
	promptSums            *byStamp[promptRead]
	bodies                *fileBodies
	fileDigests           *Generations[keptDigest] // FileDigest's, by path
	fileChanges           *fileChanges             // the served files' digest changes (D86)
	reads                 readCounts
	usage                 *usage.Counter
	flagged               lint.Mode
	functions             *offered.Functions
	unavailable           requires.Mode

	mu      sync.Mutex
	last    Listing // the last keyed listing, reused while its key holds
	hasLast bool
	gens    uint64           // the last content generation given to a listing
	scanned fsource.Snapshot // without a watch: the last scan, versioned here
	// scanChanged is closed and replaced when scanned changes.
	scanChanged chan struct{}
}

// NewView returns the view over cfg.
func NewView(cfg ViewConfig) *View {
	return &View{
		skills: cfg.Skills, prompts: cfg.Prompts,
		skillRows:  store{caller: cfg.Caller, scope: cfg.SkillsScope, timeout: cfg.Timeout, mirror: cfg.Skills},
		promptRows: store{caller: cfg.Caller, scope: cfg.PromptsScope, timeout: cfg.Timeout, mirror: cfg.Prompts},
		skillLog:   newRevisionLog(cfg.Caller, cfg.SkillsScope, cfg, "skill"),
		promptLog:  newRevisionLog(cfg.Caller, cfg.PromptsScope, cfg, "prompt"),
		src:        cfg.Source, watch: cfg.Watch, readThrough: newRowCache(), scanChanged: make(chan struct{}), reads: readCounts{n: map[string]uint64{}},
		skillMetas: newByStamp[Meta](), promptSums: newByStamp[promptRead](), bodies: newFileBodies(cfg.BodyCacheBytes),
		fileDigests: NewGenerations[keptDigest](), fileChanges: newFileChanges(),
		flagged:   cmp.Or(cfg.Flagged, lint.DefaultMode),
		functions: cfg.Functions, unavailable: cmp.Or(cfg.Unavailable, requires.DefaultMode),
		usage: cmp.Or(cfg.Usage, usage.NewCounter(nil)),
	}
}

// Source is the files' source (nil without one).
func (v *View) Source() *fsource.Source { return v.src }

// Watch is the watch over the files (nil without one).
func (v *View) Watch() *fsource.Watch { return v.watch }

// Skills returns the view now. When the stored rows cannot be listed the
// error says why and the listing holds the files alone (none shadowed).
func (v *View) Skills(ctx context.Context) (Listing, error) {
	files := v.Files(ctx)
	fns := v.functions.Snapshot()
	if s := v.skills; s != nil && s.Valid() {
		// An unchanged scope, file scan and function list give the last
		// listing without copying or sorting a row.
		if l, ok := v.lastListing(viewKey{state: s.Version(), fs: files.Version, fns: fns.Version}); ok {
			return l, nil
		}
	}
	rows, stateVersion, stateKeyed, err := v.stateSkills(ctx)
	key := viewKey{state: stateVersion, fs: files.Version, fns: fns.Version}
	if err == nil && stateKeyed {
		if l, ok := v.lastListing(key); ok {
			return l, nil
		}
	}
	l := v.merge(rows, files, fns)
	if err != nil {
		return l, err
	}
	changed := false
	if stateKeyed {
		v.mu.Lock()
		if v.hasLast && v.last.key.fs == key.fs && sameSkills(v.last.Skills, l.Skills) && sameSkills(v.last.Withheld, l.Withheld) && sameSkills(v.last.Hidden, l.Hidden) {
			// The same files and the same entries under a newer scope
			// version: the content, and so its generation, is the last one.
			l = v.last
		} else {
			v.gens++
			l.gen = v.gens
			changed = true
		}
		l.key, l.keyed = key, true
		v.last, v.hasLast = l, true
		v.mu.Unlock()
	}
	if changed || !stateKeyed {
		v.keepReadsOf(l)
	}
	return l, nil
}

// sameSkills reports whether two listings' entries are equal: every field
// a surface reads, and for a file, the same file unchanged (by its Stamp).
// With the same file scan, equal entries mean equal listings: the shadowed
// files and the skips follow from them. The lint's findings and the
// requirements follow from the digest, so they are not compared; whether
// the requirements are met is (D85).
func sameSkills(a, b []Skill) bool {
	return slices.EqualFunc(a, b, func(x, y Skill) bool {
		mx, my := x.Meta, y.Meta
		mx.Lint, my.Lint, mx.Requires, my.Requires = nil, nil, nil, nil
		return x.ID == y.ID && x.Origin == y.Origin && x.RegisteredAt == y.RegisteredAt && x.Revision == y.Revision && mx == my && x.File.Same(y.File) &&
			x.Unavailable.Equal(y.Unavailable)
	})
}

// lastListing is the last listing built, when it was built from key.
func (v *View) lastListing(key viewKey) (Listing, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.last, v.hasLast && v.last.key == key
}

// merge is the precedence rule for skills: a stored row wins its id
// (shadow); the file scan has already ordered globs before roots.
func (v *View) merge(rows []StateSkill, files fsource.Snapshot, fns offered.Snapshot) Listing {
	l := Listing{Skills: make([]Skill, 0, len(rows)+len(files.Skills)), Skips: files.SkillSkips, Files: files}
	var served []fsource.Skill
	served, l.Shadowed = shadow(files.Skills, func(f fsource.Skill) string { return f.ID },
		rows, func(r StateSkill) string { return r.ID })
	metas := v.skillMetas.values(listedOf(served, skillFile), func(i int) Meta { return fileMetaOf(served[i], v.src) })
	v.fileChanges.note(files.Version, served, metas)
	// Both lists are sorted by id and disjoint: merge them in order.
	i, j := 0, 0
	for i < len(rows) || j < len(served) {
		if j == len(served) || (i < len(rows) && rows[i].ID < served[j].ID) {
			r := rows[i]
			l.Skills = append(l.Skills, Skill{ID: r.ID, Origin: OriginState, RegisteredAt: r.RegisteredAt, Revision: r.Revision, Meta: r.Meta})
			i++
			continue
		}
		f := served[j]
		l.Skills = append(l.Skills, Skill{ID: f.ID, Origin: OriginFS, RegisteredAt: Timestamp(f.ModTime), Meta: metas[j], File: f})
		j++
	}
	if v.flagged == lint.Withhold {
		l.Skills, l.Withheld = withhold(l.Skills, func(s Skill) bool { return s.Lint != nil })
	}
	JudgeAvailability(l.Skills, fns)
	if v.unavailable == requires.Hide {
		l.Skills, l.Hidden = withhold(l.Skills, func(s Skill) bool { return s.Unavailable != nil })
	}
	return l
}

// shadow is the precedence rule, written once for skills and prompts:
// a file whose key a stored row has is shadowed; the others are served,
// in their order.
func shadow[F, R any](files []F, fileKey func(F) string, rows []R, rowKey func(R) string) (served, shadowed []F) {
	if len(files) == 0 {
		return nil, nil // nothing to shadow: no set of the stored keys to build
	}
	stored := make(map[string]struct{}, len(rows))
	for _, r := range rows {
		stored[rowKey(r)] = struct{}{}
	}
	for _, f := range files {
		if _, ok := stored[fileKey(f)]; ok {
			shadowed = append(shadowed, f)
		} else {
			served = append(served, f)
		}
	}
	return served, shadowed
}

// Files is the current file scan: the watch's (after checking that no
// directory it read has changed), else a scan made now and versioned
// against the last one.
func (v *View) Files(ctx context.Context) fsource.Snapshot {
	switch {
	case v.watch != nil:
		return v.watch.Fresh(ctx)
	case v.src == nil || v.src.Empty():
		return fsource.Snapshot{}
	}
	next := v.src.Scan(ctx)
	v.mu.Lock()
	defer v.mu.Unlock()
	if next.Same(v.scanned) {
		return v.scanned
	}
	next.Version = v.scanned.Version + 1
	v.scanned = next
	close(v.scanChanged)
	v.scanChanged = make(chan struct{})
	return next
}

// Refresh brings the file scan up to date now: after a read found a
// listed file changed, so that every surface shows what the read served.
func (v *View) Refresh(ctx context.Context) {
	if v.watch != nil {
		v.watch.Rescan(ctx)
	}
}

// timestampLayout renders registered_at (docs/decisions.md D11), the
// layout of every time the registry answers with (contract.TimestampLayout).
const timestampLayout = contract.TimestampLayout

// Timestamp formats t as a registered_at value; the zero time (a file
// whose mtime is unknown) is "".
func Timestamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(timestampLayout)
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// readOnlyBytes is s's bytes without a copy, for a reader that only reads
// them while s lives: a registered body is hashed as it arrives, and a
// copy of 4 KiB per skills::register was a copy for nothing
// (docs/decisions.md D77).
func readOnlyBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
