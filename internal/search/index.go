// Package search ranks skills for a need (docs/decisions.md D40, D80). It
// is a small in-memory inverted index scored with BM25F: a term's
// frequency is weighted per field (the id's words, the title, the
// description, the headings, the body) and length-normalised per field
// before one saturation, so a word in a skill's title counts for more than
// the same word deep in its body. A body is normalised against a fixed
// pivot length, not the collection's average, so a long body does not win
// by length alone whatever the corpus (D80). Ranked as skills
// (SearchGroups), a skill's references are one more, low-weight field of
// the skill's own document. Text is analysed by Terms. docs/search.md says
// why this is not bleve.
//
// Searcher (skills.go) serves the index as skill::search over the content
// view (package catalog), whose change feed it follows.
package search

import (
	"math"
	"slices"
	"strings"
	"sync"
)

// Doc is one skill as the index sees it.
type Doc struct {
	ID          string
	Title       string
	Description string
	Headings    string // the body's markdown headings, one per line
	Body        string
	// Parent is the id of the nearest ancestor that is a skill (NearestSkill),
	// "" for none: SearchGroups folds the document into it.
	Parent string
}

// The fields, in the order of Doc's texts.
const (
	fieldID = iota
	fieldTitle
	fieldDescription
	fieldHeadings
	fieldBody
	numFields
)

// BM25F parameters: per field a weight and a length normalisation b, and
// one saturation k1.
var (
	fieldWeight = [numFields]float64{3.0, 2.5, 2.0, 1.5, 1.0}
	fieldB      = [numFields]float64{0.3, 0.5, 0.75, 0.75, 0.75}
)

const k1 = 1.2

// The body's length is normalised against a fixed pivot of bodyPivot
// terms rather than the collection's average (docs/decisions.md D80): real
// skills' bodies are about five times longer than short hand-written
// ones, and against the average a long body matches a paraphrase's
// generic words like a hub. A skill's references, ranked as skills, are
// one field of weight refWeight whose length (all its references' terms)
// is normalised against the same pivot with refB.
const (
	bodyPivot = 300
	refWeight = 0.3
	refB      = 0.75
)

// A posting is one document's occurrences of a term, packed in 64 bits:
// the document's slot in the low 24 bits, then its frequency in each of
// the five fields, one byte each (BM25 saturates long before 255, so
// higher counts are stored as 255). Eight bytes a posting keeps the index
// smaller than bleve's on the corpus (BenchmarkIndexMemory).
type posting uint64

const (
	slotBits = 24
	maxSlots = 1 << slotBits
)

func newPosting(slot int32, tf *[numFields]uint8) posting {
	p := posting(slot)
	for f := range numFields {
		p |= posting(tf[f]) << (slotBits + 8*f)
	}
	return p
}

func (p posting) slot() int32 { return int32(p & (maxSlots - 1)) }

func (p posting) tf(f int) uint8 { return uint8(p >> (slotBits + 8*f)) }

// entry is one indexed document.
type entry struct {
	id     string
	len    [numFields]uint32 // terms per field
	parent string            // Doc.Parent
	group  int32             // the slot SearchGroups folds this one into: its topmost indexed ancestor, else itself
	refLen uint32            // of a group: the terms of every document folded into it, its references field
}

// Index is a searchable set of documents, safe for concurrent use.
type Index struct {
	mu       sync.RWMutex
	terms    []string    // by term id
	order    []int32     // term ids sorted by term, for lookup (a map costs twice the memory)
	postings [][]posting // by term id
	docs     []entry     // by slot; a free slot has an empty id
	byID     map[string]int32
	free     []int32 // free slots
	live     int
	totalLen [numFields]uint64

	nested    int  // documents folded into another (groupLocked)
	expansion bool // related stems score too (WithExpansion)
	wordnet   bool // WordNet's related stems among them (WithWordNet)

	tuning tuning // the ranking's parameters; trials of the tests change them
}

// tuning is what the evaluation's trials vary (docs/search.md); an index
// of the worker keeps defaultTuning.
type tuning struct {
	weight    [numFields]float64 // per field
	b         [numFields]float64 // per field
	bodyPivot float64            // 0: the collection's average, as before D80
	refWeight float64
	noStem    bool    // words as written, lower-cased (related stems then rarely meet a term)
	wordCap   float64 // > 0: a word's related stems weigh at most this together, ranked as skills (D82's trial, not kept)
}

var defaultTuning = tuning{weight: fieldWeight, b: fieldB, bodyPivot: bodyPivot, refWeight: refWeight}

// Option configures an Index.
type Option func(*Index)

// WithExpansion turns query expansion (related stems from WordNet and the
// tech thesaurus, docs/search.md) on or off; it is on by default. Tests
// and benchmarks turn it off on their own index to compare.
func WithExpansion(on bool) Option {
	return func(x *Index) { x.expansion = on }
}

// WithWordNet turns WordNet's related stems on or off, leaving the tech
// thesaurus as WithExpansion says.
func WithWordNet(on bool) Option {
	return func(x *Index) { x.wordnet = on }
}

// New returns an empty index.
func New(opts ...Option) *Index {
	x := &Index{byID: map[string]int32{}, expansion: true, wordnet: true, tuning: defaultTuning}
	for _, o := range opts {
		o(x)
	}
	return x
}

// Len is the number of documents held.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.live
}

// Update adds or replaces put (the last of each id) and removes the ids
// in drop; an id in both is put. Removals cost
// one pass over every posting, whatever their number, so a batch is as
// cheap as one change. Documents beyond 16,777,216 are not indexed.
func (x *Index) Update(put []Doc, drop []string) {
	put = lastOfEach(put)
	// Analysis happens outside the lock: searches go on meanwhile.
	analysed := make([][numFields][]string, len(put))
	for i, d := range put {
		for f, text := range [numFields]string{d.ID, d.Title, d.Description, d.Headings, d.Body} {
			analysed[i][f] = terms(text, !x.tuning.noStem)
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	gone := map[int32]bool{}
	for _, id := range drop {
		x.releaseLocked(id, gone)
	}
	for _, d := range put {
		x.releaseLocked(d.ID, gone)
	}
	if len(gone) > 0 {
		for tid, list := range x.postings {
			kept := list[:0]
			for _, p := range list {
				if !gone[p.slot()] {
					kept = append(kept, p)
				}
			}
			x.postings[tid] = kept
		}
		for slot := range gone {
			x.free = append(x.free, slot)
		}
	}
	touched := map[int32]bool{}
	added := map[string]int32{} // terms new in this update, not yet in order
	for i, d := range put {
		x.addLocked(d.ID, d.Parent, analysed[i], touched, added)
	}
	x.mergeOrderLocked(added)
	x.groupLocked()
	for tid := range touched {
		x.postings[tid] = trim(x.postings[tid])
	}
	x.postings, x.docs, x.terms = trim(x.postings), trim(x.docs), trim(x.terms)
}

// termIDLocked finds a term among those in order.
func (x *Index) termIDLocked(t string) (int32, bool) {
	i, found := slices.BinarySearchFunc(x.order, t, func(id int32, t string) int { return strings.Compare(x.terms[id], t) })
	if !found {
		return 0, false
	}
	return x.order[i], true
}

// mergeOrderLocked merges the terms added by an update into order.
func (x *Index) mergeOrderLocked(added map[string]int32) {
	if len(added) == 0 {
		return
	}
	fresh := make([]int32, 0, len(added))
	for _, id := range added {
		fresh = append(fresh, id)
	}
	byTerm := func(a, b int32) int { return strings.Compare(x.terms[a], x.terms[b]) }
	slices.SortFunc(fresh, byTerm)
	merged := make([]int32, 0, len(x.order)+len(fresh))
	i, j := 0, 0
	for i < len(x.order) && j < len(fresh) {
		if byTerm(x.order[i], fresh[j]) < 0 {
			merged = append(merged, x.order[i])
			i++
		} else {
			merged = append(merged, fresh[j])
			j++
		}
	}
	merged = append(append(merged, x.order[i:]...), fresh[j:]...)
	x.order = merged
}

// trim drops a slice's growth slack when it is more than a quarter: the
// index keeps what it holds, not room to grow.
func trim[T any](list []T) []T {
	if cap(list) > len(list)+len(list)/4+4 {
		return slices.Clone(list)
	}
	return list
}

// lastOfEach keeps the last document given for each id.
func lastOfEach(put []Doc) []Doc {
	last := make(map[string]int, len(put))
	for i, d := range put {
		last[d.ID] = i
	}
	if len(last) == len(put) {
		return put
	}
	out := make([]Doc, 0, len(last))
	for i, d := range put {
		if last[d.ID] == i {
			out = append(out, d)
		}
	}
	return out
}

// releaseLocked forgets id's document and marks its slot for the pass
// that removes its postings.
func (x *Index) releaseLocked(id string, gone map[int32]bool) {
	slot, ok := x.byID[id]
	if !ok {
		return
	}
	e := &x.docs[slot]
	for f := range numFields {
		x.totalLen[f] -= uint64(e.len[f])
	}
	*e = entry{}
	delete(x.byID, id)
	gone[slot] = true
	x.live--
}

// groupLocked points every document at the slot SearchGroups folds it
// into: it follows parents through the indexed documents to the topmost,
// so a reference of a nested skill lands where that skill does. A parent
// that is not indexed (not served, or unreadable) ends the chain. One
// pass over the documents per update; a map lookup per nested one.
func (x *Index) groupLocked() {
	x.nested = 0
	for slot := range x.docs {
		x.docs[slot].refLen = 0
	}
	for slot := range x.docs {
		e := &x.docs[slot]
		e.group = int32(slot)
		for p, hops := e.parent, 0; p != "" && hops < 64; hops++ {
			ps, ok := x.byID[p]
			if !ok {
				break
			}
			e.group = ps
			p = x.docs[ps].parent
		}
		if e.group != int32(slot) {
			x.nested++
			g := &x.docs[e.group]
			for f := range numFields {
				g.refLen += e.len[f]
			}
		}
	}
}

func (x *Index) addLocked(id, parent string, fields [numFields][]string, touched map[int32]bool, added map[string]int32) {
	var slot int32
	if n := len(x.free); n > 0 {
		slot, x.free = x.free[n-1], x.free[:n-1]
	} else {
		if len(x.docs) >= maxSlots {
			return
		}
		slot = int32(len(x.docs))
		x.docs = append(x.docs, entry{})
	}
	e := entry{id: id, parent: parent}
	counts := map[int32]*[numFields]uint8{}
	var order []int32
	for f, terms := range fields {
		e.len[f] = uint32(len(terms))
		x.totalLen[f] += uint64(len(terms))
		for _, t := range terms {
			tid, ok := x.termIDLocked(t)
			if !ok {
				if tid, ok = added[t]; !ok {
					tid = int32(len(x.postings))
					added[t] = tid
					x.terms = append(x.terms, t)
					x.postings = append(x.postings, nil)
				}
			}
			c := counts[tid]
			if c == nil {
				c = &[numFields]uint8{}
				counts[tid] = c
				order = append(order, tid)
			}
			if c[f] < math.MaxUint8 {
				c[f]++
			}
		}
	}
	for _, tid := range order {
		x.postings[tid] = append(x.postings[tid], newPosting(slot, counts[tid]))
		touched[tid] = true
	}
	x.docs[slot] = e
	x.byID[id] = slot
	x.live++
}

// Headings collects a markdown body's heading lines (without the #s).
func Headings(body string) string {
	var b strings.Builder
	for _, line := range strings.Split(body, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "#") {
			b.WriteString(strings.TrimSpace(strings.TrimLeft(t, "#")))
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// DocOf is the document of a skill: its id, its title (the body's first
// "# " heading, else the frontmatter name, else the id), its description,
// its headings and its body.
func DocOf(id, name, description, body string) Doc {
	title := name
	for _, line := range strings.Split(body, "\n") {
		if t, ok := strings.CutPrefix(strings.TrimSpace(line), "# "); ok {
			title = strings.TrimSpace(t)
			break
		}
	}
	if title == "" {
		title = id
	}
	return Doc{ID: id, Title: title, Description: description, Headings: Headings(body), Body: body}
}

// NearestSkill is the id of id's nearest ancestor for which isSkill
// holds ("a/b" for "a/b/references/x" when a/b is a skill), or "" when
// none is: the skill a nested document is folded into (Doc.Parent).
func NearestSkill(id string, isSkill func(id string) bool) string {
	for i := strings.LastIndexByte(id, '/'); i > 0; i = strings.LastIndexByte(id[:i], '/') {
		if isSkill(id[:i]) {
			return id[:i]
		}
	}
	return ""
}
