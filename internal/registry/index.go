package registry

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/skillmd"
)

// The fixed parts of the iii://skills index (docs/reference.md#index-layout).
const (
	indexIntro = "# Skills\n\n" +
		"Read each skill's resource for orientation on when and why to call its functions. " +
		"Sub-skills are indented under their parent path so a top-level skill stays small and " +
		"the LLM can drill in only when it needs more detail.\n\n"
	indexCustomSection = "## Custom skills\n\n" +
		"Loaded from `skills:` glob patterns in the worker config. " +
		"The file system is the source of truth for these entries.\n\n"
	// indexCustomSectionRoots is the section's heading when it lists skill
	// folders from `roots:` too (0.2 had no roots, so its text stays as
	// it was wherever none is listed).
	indexCustomSectionRoots = "## Custom skills\n\n" +
		"Loaded from `skills:` glob patterns and `roots:` skill folders in the worker config. " +
		"The file system is the source of truth for these entries.\n\n"
	indexEmpty      = "_No skills are currently registered._\n"
	indexErrorStart = "# Skills\n\n_Error reading skills index: "
	indexErrorEnd   = "_\n"
	bulletDash      = " — " // U+2014 with a space either side
	// unavailableMark starts what an unavailable skill lacks (D85):
	// " — unavailable: function acme::status".
	unavailableMark = "unavailable: "
)

// indexEntry is one skill to list: its id and markdown body ("" when an fs
// file could not be read, which lists it under its id alone).
type indexEntry struct {
	id   string
	body string
	// The frontmatter of an Agent Skills SKILL.md (docs/decisions.md D31):
	// its description is the bullet's, its name the title when the body
	// has no "# " heading.
	name, description string
}

// bullet is an entry's rendered parts.
type bullet struct {
	id, title, desc string
	depth           int
	hasDesc, cut    bool
	root            bool  // served from a roots: folder (or, for a fold, one of its entries is)
	fold            *fold // set on a line that stands for folded entries (D44)
	// missing, on a skill whose requirements are not met (D85), is what
	// it lacks, written after the line's text.
	missing string
}

// customSection is the heading of the file skills' section: 0.2's, or
// the one that names roots when a root's skill is listed.
func customSection(fs []bullet) string {
	for _, bl := range fs {
		if bl.root {
			return indexCustomSectionRoots
		}
	}
	return indexCustomSection
}

// index renders iii://skills: state skills, then the fs skills state does
// not shadow under "## Custom skills". When state cannot be listed the
// whole index is one error line.
func (r *Registry) index(ctx context.Context) string {
	l, err := r.skillListing(ctx)
	return r.indexOf(l, err)
}

// indexOf is the index of listing l, or the error line for err.
func (r *Registry) indexOf(l catalog.Listing, err error) string {
	if err != nil {
		return indexErrorStart + err.Error() + indexErrorEnd
	}
	b := r.Budgets()
	version, cacheable := l.Version()
	key := budgeted{version, b}
	if cacheable {
		if text, ok := r.indexCache.get(key); ok {
			return text
		}
	}
	var state, fs []bullet
	for _, s := range l.Skills {
		if s.Origin == originState {
			state = append(state, markedBullet(s))
		} else {
			bl := markedBullet(s)
			bl.root = s.File.Root != ""
			fs = append(fs, bl)
		}
	}
	text := renderBudgeted(state, fs, b.IndexMaxTokens, b.MaxResponseBytes)
	if cacheable {
		r.indexCache.put(key, text)
	}
	return text
}

// versionCache keeps the last value rendered and the versions it came
// from (docs/decisions.md D19). Values are shared: callers never modify
// them.
type versionCache[T any] struct {
	mu    sync.Mutex
	key   any // comparable: a catalog.Listing version with its budgets (budgeted), or View.PromptsVersion's
	value T
	ok    bool
}

func (c *versionCache[T]) get(key any) (T, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.value, c.ok && c.key == key
}

func (c *versionCache[T]) put(key any, value T) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.key, c.value, c.ok = key, value, true
}

// renderIndex lays out the index markdown for entries already sorted by
// id. It sizes the output once, so the cost is one pass over the bodies
// plus a single allocation for the text.
func renderIndex(state, fs []indexEntry) string {
	all := make([]bullet, 0, len(state)+len(fs))
	for _, e := range state {
		all = append(all, newBullet(e))
	}
	for _, e := range fs {
		all = append(all, newBullet(e))
	}
	return renderBullets(all[:len(state)], all[len(state):], 0)
}

func bulletsOf(entries []indexEntry) []bullet {
	out := make([]bullet, len(entries))
	for i, e := range entries {
		out[i] = newBullet(e)
	}
	return out
}

// renderBullets lays out the index from state and fs bullets already
// sorted by id, sizing the output once. With a response budget
// (max_response_bytes; 0 means none) an index whose resources-read
// response would exceed it is cut after the last bullet that fits, and a
// last line says how many entries were left out and how to reach them
// (docs/decisions.md D26).
func renderBullets(state, fs []bullet, maxResponse int) string {
	size := len(indexIntro) + len(indexEmpty)
	for _, bl := range state {
		size += bl.size()
	}
	for _, bl := range fs {
		size += bl.size()
	}
	section := customSection(fs)
	if len(fs) > 0 {
		size += 1 + len(section)
	}

	var b strings.Builder
	b.Grow(size)
	b.WriteString(indexIntro)
	if len(state)+len(fs) == 0 {
		b.WriteString(indexEmpty)
		return b.String()
	}
	for _, bl := range state {
		bl.write(&b)
	}
	if len(fs) > 0 {
		if len(state) > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(section)
		for _, bl := range fs {
			bl.write(&b)
		}
	}
	text := b.String()
	if maxResponse > 0 && readEnvelope(IndexURI, contract.MIMEMarkdown)+jsonTextLen(text) > maxResponse {
		return renderCut(state, fs, maxResponse)
	}
	return text
}

// indexCutNote is the last line of an index cut at the response budget.
const indexCutNote = "\n_%d more skills are not listed: this index is cut at the worker's response budget " +
	"(max_response_bytes, %d bytes). List every id with the skills::list function, then read iii://{id}._\n"

// renderCut renders as many bullets as fit in a resources-read response of
// maxResponse bytes, keeping room for the note that says how many were
// left out.
func renderCut(state, fs []bullet, maxResponse int) string {
	total := len(state) + len(fs)
	var b strings.Builder
	b.WriteString(indexIntro)
	room := maxResponse - readEnvelope(IndexURI, contract.MIMEMarkdown) - jsonTextLen(indexIntro) -
		jsonTextLen(fmt.Sprintf(indexCutNote, total, maxResponse))
	var line strings.Builder
	fits := func(write func(*strings.Builder)) bool {
		line.Reset()
		write(&line)
		if room -= jsonTextLen(line.String()); room < 0 {
			return false
		}
		b.WriteString(line.String())
		return true
	}
	written := 0
	for _, bl := range state {
		if !fits(bl.write) {
			break
		}
		written++
	}
	if written == len(state) && len(fs) > 0 && fits(func(w *strings.Builder) {
		if len(state) > 0 {
			w.WriteByte('\n')
		}
		w.WriteString(customSection(fs))
	}) {
		for _, bl := range fs {
			if !fits(bl.write) {
				break
			}
			written++
		}
	}
	fmt.Fprintf(&b, indexCutNote, total-written, maxResponse)
	return b.String()
}

func newBullet(e indexEntry) bullet {
	sum := skillmd.Summarize(e.id, skillmd.Doc{Name: e.name, Description: e.description, Body: e.body})
	return bulletOf(e.id, sum)
}

// bulletOf is the index line of the skill id with summary sum.
func bulletOf(id string, sum skillmd.Summary) bullet {
	return bullet{id: id, depth: strings.Count(id, "/"), title: sum.Title, desc: sum.Desc, hasDesc: sum.HasDesc, cut: sum.Cut}
}

// markedBullet is the index line of a listing's entry, marked with what
// it lacks when it is unavailable (D85).
func markedBullet(s catalog.Skill) bullet {
	bl := bulletOf(s.ID, s.Summary)
	if s.Unavailable != nil {
		bl.missing = s.Unavailable.String()
	}
	return bl
}

// size is the length of the rendered line.
func (bl bullet) size() int {
	if bl.fold != nil {
		return bl.foldSize()
	}
	n := 2*bl.depth + len("- [`") + len(bl.id) + len("`](iii://") + len(bl.id) + len(")") + len(bulletDash) + len(bl.title) + 1
	if bl.hasDesc {
		n += len(bulletDash) + len(bl.desc)
	}
	if bl.cut {
		n += len(skillmd.Ellipsis)
	}
	if bl.missing != "" {
		n += len(bulletDash) + len(unavailableMark) + len(bl.missing)
	}
	return n
}

// write renders `<indent>- [`id`](iii://id) — title[ — desc][ — unavailable: …]`.
func (bl bullet) write(b *strings.Builder) {
	if bl.fold != nil {
		bl.writeFold(b)
		return
	}
	for range bl.depth {
		b.WriteString("  ")
	}
	b.WriteString("- [`")
	b.WriteString(bl.id)
	b.WriteString("`](")
	b.WriteString(Scheme)
	b.WriteString(bl.id)
	b.WriteString(")")
	b.WriteString(bulletDash)
	b.WriteString(bl.title)
	if bl.hasDesc {
		b.WriteString(bulletDash)
		b.WriteString(bl.desc)
	}
	if bl.cut {
		b.WriteString(skillmd.Ellipsis)
	}
	if bl.missing != "" {
		b.WriteString(bulletDash)
		b.WriteString(unavailableMark)
		b.WriteString(bl.missing)
	}
	b.WriteByte('\n')
}
