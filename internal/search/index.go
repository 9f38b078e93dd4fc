// Package search ranks skills for a need (docs/decisions.md D40). It is a
// small in-memory inverted index scored with BM25F: a term's frequency is
// weighted per field (the id's words, the title, the description, the
// headings, the body) and length-normalised per field before one
// saturation, so a word in a skill's title counts for more than the same
// word deep in its body, and a long body does not win by length alone.
// Text is analysed by Terms. docs/search.md says why this is not bleve.
package search

import (
	"cmp"
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

// posting is one document's occurrences of a term, per field.
type posting struct {
	doc int32
	tf  [numFields]uint16
}

// entry is one indexed document.
type entry struct {
	id    string
	len   [numFields]uint32 // terms per field
	terms []int32           // the distinct terms it holds, to remove it
	live  bool
}

// Index is a searchable set of documents, safe for concurrent use.
type Index struct {
	mu       sync.RWMutex
	termIDs  map[string]int32
	postings [][]posting // by term id
	docs     []entry
	byID     map[string]int32
	free     []int32 // slots of removed documents
	live     int
	totalLen [numFields]uint64
}

// New returns an empty index.
func New() *Index {
	return &Index{termIDs: map[string]int32{}, byID: map[string]int32{}}
}

// Len is the number of documents held.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.live
}

// Update adds or replaces put and removes the ids in drop.
func (x *Index) Update(put []Doc, drop []string) {
	// Analysis happens outside the lock: searches go on meanwhile.
	analysed := make([][numFields][]string, len(put))
	for i, d := range put {
		for f, text := range [numFields]string{d.ID, d.Title, d.Description, d.Headings, d.Body} {
			analysed[i][f] = Terms(text)
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, id := range drop {
		x.removeLocked(id)
	}
	for i, d := range put {
		x.removeLocked(d.ID)
		x.addLocked(d.ID, analysed[i])
	}
}

func (x *Index) addLocked(id string, fields [numFields][]string) {
	var slot int32
	if n := len(x.free); n > 0 {
		slot, x.free = x.free[n-1], x.free[:n-1]
	} else {
		slot = int32(len(x.docs))
		x.docs = append(x.docs, entry{})
	}
	e := entry{id: id, live: true}
	counts := map[int32]*[numFields]uint16{}
	for f, terms := range fields {
		e.len[f] = uint32(len(terms))
		x.totalLen[f] += uint64(len(terms))
		for _, t := range terms {
			tid, ok := x.termIDs[t]
			if !ok {
				tid = int32(len(x.postings))
				x.termIDs[t] = tid
				x.postings = append(x.postings, nil)
			}
			c := counts[tid]
			if c == nil {
				c = &[numFields]uint16{}
				counts[tid] = c
				e.terms = append(e.terms, tid)
			}
			if c[f] < math.MaxUint16 {
				c[f]++
			}
		}
	}
	for _, tid := range e.terms {
		x.postings[tid] = append(x.postings[tid], posting{doc: slot, tf: *counts[tid]})
	}
	x.docs[slot] = e
	x.byID[id] = slot
	x.live++
}

func (x *Index) removeLocked(id string) {
	slot, ok := x.byID[id]
	if !ok {
		return
	}
	e := &x.docs[slot]
	for _, tid := range e.terms {
		list := x.postings[tid]
		if i := slices.IndexFunc(list, func(p posting) bool { return p.doc == slot }); i >= 0 {
			list[i] = list[len(list)-1]
			x.postings[tid] = list[:len(list)-1]
		}
	}
	for f := range numFields {
		x.totalLen[f] -= uint64(e.len[f])
	}
	*e = entry{}
	delete(x.byID, id)
	x.free = append(x.free, slot)
	x.live--
}

// Hit is one ranked result.
type Hit struct {
	ID    string
	Score float64
}

// scratch holds a search's per-document accumulators, reused.
type scratch struct {
	score   []float64
	touched []int32
}

var scratchPool = sync.Pool{New: func() any { return &scratch{} }}

// Search ranks the documents for text: the first limit hits, best first
// (ties by id), and how many documents matched at all. A text without a
// searchable word (only stop words or punctuation) matches nothing.
func (x *Index) Search(text string, limit int) ([]Hit, int) {
	terms := Terms(text)
	slices.Sort(terms)
	terms = slices.Compact(terms)
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.live == 0 || len(terms) == 0 || limit < 1 {
		return nil, 0
	}
	var avg [numFields]float64
	for f := range numFields {
		avg[f] = math.Max(float64(x.totalLen[f])/float64(x.live), 1)
	}
	s := scratchPool.Get().(*scratch)
	defer scratchPool.Put(s)
	if len(s.score) < len(x.docs) {
		s.score = make([]float64, len(x.docs))
	}
	matched := s.touched[:0]
	for _, t := range terms {
		tid, ok := x.termIDs[t]
		if !ok || len(x.postings[tid]) == 0 {
			continue
		}
		list := x.postings[tid]
		n, df := float64(x.live), float64(len(list))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range list {
			e := &x.docs[p.doc]
			w := 0.0
			for f := range numFields {
				if p.tf[f] > 0 {
					norm := 1 - fieldB[f] + fieldB[f]*float64(e.len[f])/avg[f]
					w += fieldWeight[f] * float64(p.tf[f]) / norm
				}
			}
			if s.score[p.doc] == 0 {
				matched = append(matched, p.doc)
			}
			s.score[p.doc] += idf * w / (k1 + w)
		}
	}
	hits := make([]Hit, 0, len(matched))
	for _, d := range matched {
		hits = append(hits, Hit{ID: x.docs[d].id, Score: s.score[d]})
		s.score[d] = 0
	}
	s.touched = matched[:0]
	total := len(hits)
	slices.SortFunc(hits, func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, total
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
