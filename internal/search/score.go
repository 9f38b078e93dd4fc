package search

import (
	"math"
	"slices"
	"sync"
)

// Hit is one ranked result.
type Hit struct {
	ID    string
	Score float64
	// Matched are the nested documents SearchGroups folded into this one
	// that matched the query themselves, best first; nil from Search.
	Matched []Hit
}

// scratch holds a search's per-document accumulators, reused.
type scratch struct {
	score   []float64
	touched []int32
	best    []float64 // SearchGroups: per group, its score
	groups  []int32
	acc     []float64 // SearchGroups: per group, one term's weighted frequency
	inTerm  []int32   // SearchGroups: the groups one term reached
}

var scratchPool = sync.Pool{New: func() any { return &scratch{} }}

// queryTerm is an index term a search scores: one of the query's own
// words (weight 1), or a stem related to one (docs/search.md), weighted
// expandWeight times the relation's strength, whose idf is capped at the
// word's own (of, the word's term; -1 for a word's own term or a word the
// index does not hold).
type queryTerm struct {
	tid    int32
	weight float64
	of     int32
	word   int     // the query word's index among the search's words
	skill  float64 // the weight a skill ranked by SearchGroups gives it: weight, unless tuning.wordCap caps it
}

// expandWeight is how much a related stem of strength 1 counts against
// the word itself: a document that says "bill" matches a need for an
// "invoice" half as well as one that says "invoice".
const expandWeight = 0.5

// techWeight is expandWeight for the tech thesaurus: a stem it gives
// as a full synonym of the word ("database" for "db") counts a quarter.
// It was 0.5 at first, WordNet's cap; that cost recall@1 (docs/search.md).
const techWeight = 0.25

// queryTermsLocked turns the query's distinct words into the terms to
// score: the words the index holds, and the related stems it holds that
// the query does not say itself, from WordNet and from the tech
// thesaurus; a stem both relate to a word counts once, as the stronger.
// With tuning.wordCap (a trial of D82, not kept), the related stems of
// one word together weigh at most that when ranking skills; a document's
// own score (Search, and Matched) keeps their weights.
func (x *Index) queryTermsLocked(words []string) []queryTerm {
	th, tech := loadThesaurus(), loadTech()
	var out []queryTerm
	for i, w := range words {
		if tid, ok := x.termIDLocked(w); ok && len(x.postings[tid]) > 0 {
			out = append(out, queryTerm{tid, 1, -1, i, 1})
		}
	}
	own := len(out)
	for wi, w := range words {
		if !x.expansion {
			break
		}
		of := int32(-1)
		if tid, ok := x.termIDLocked(w); ok && len(x.postings[tid]) > 0 {
			of = tid
		}
		add := func(weight, strength float64, r string) {
			if _, said := slices.BinarySearch(words, r); said {
				return
			}
			tid, ok := x.termIDLocked(r)
			if !ok || len(x.postings[tid]) == 0 {
				return
			}
			q := queryTerm{tid, weight * strength, of, wi, weight * strength}
			// a stem related to two words counts once, as the stronger
			if i := slices.IndexFunc(out[own:], func(o queryTerm) bool { return o.tid == tid }); i >= 0 {
				if o := &out[own+i]; q.weight > o.weight {
					*o = q
				}
				return
			}
			out = append(out, q)
		}
		if x.wordnet {
			th.related(w, func(r string, strength float64) { add(expandWeight, strength, r) })
		}
		tech.related(w, func(r string, strength float64) { add(techWeight, strength, r) })
	}
	if c := x.tuning.wordCap; c > 0 {
		capRelated(out[own:], len(words), c)
	}
	return out
}

// capRelated scales the skill weights of each query word's related stems
// so that together they weigh at most c (tuning.wordCap).
func capRelated(related []queryTerm, words int, c float64) {
	sum := make([]float64, words)
	for _, q := range related {
		sum[q.word] += q.skill
	}
	for i := range related {
		if s := sum[related[i].word]; s > c {
			related[i].skill *= c / s
		}
	}
}

// Search ranks the documents for text: the first limit hits, best first
// (ties by id), and how many documents matched at all. A text without a
// searchable word (only stop words or punctuation) matches nothing.
func (x *Index) Search(text string, limit int) ([]Hit, int) {
	return x.search(text, limit, false)
}

// SearchGroups ranks skills rather than documents: each document is
// folded into its topmost indexed ancestor (Doc.Parent), and the skill is
// scored as one document by BM25F whose fields are its own and one more,
// its references: every nested document's terms, weighted refWeight and
// normalised against the body's fixed pivot (docs/decisions.md D80). Its
// idf counts skills, not documents. The nested documents that matched
// are listed under it in Matched, best first by their own score (as
// Search gives it). limit counts groups; so does the total.
func (x *Index) SearchGroups(text string, limit int) ([]Hit, int) {
	return x.search(text, limit, true)
}

func (x *Index) search(text string, limit int, grouped bool) ([]Hit, int) {
	words := terms(text, !x.tuning.noStem)
	slices.Sort(words)
	words = slices.Compact(words)
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.live == 0 || len(words) == 0 || limit < 1 {
		return nil, 0
	}
	fs := fieldScale{weight: x.tuning.weight, b: x.tuning.b}
	for f := range numFields {
		fs.avg[f] = math.Max(float64(x.totalLen[f])/float64(x.live), 1)
	}
	if x.tuning.bodyPivot > 0 {
		fs.avg[fieldBody] = x.tuning.bodyPivot
	}
	s := scratchPool.Get().(*scratch)
	defer scratchPool.Put(s)
	if len(s.score) < len(x.docs) {
		s.score = make([]float64, len(x.docs))
	}
	folded := grouped && x.nested > 0 // else every document is its own group
	if folded && len(s.acc) < len(x.docs) {
		s.best, s.acc = make([]float64, len(x.docs)), make([]float64, len(x.docs))
	}
	idf := func(n, df int) float64 {
		return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
	}
	refPivot := fs.avg[fieldBody]
	matched := s.touched[:0]
	groups := s.groups[:0]
	var groupDF map[int32]int // a word's skill-level df, which caps its related stems' idf
	if folded {
		groupDF = map[int32]int{}
	}
	for _, q := range x.queryTermsLocked(words) {
		list := x.postings[q.tid]
		docIDF := idf(x.live, len(list))
		if q.of >= 0 {
			docIDF = math.Min(docIDF, idf(x.live, len(x.postings[q.of])))
		}
		scale := q.weight * docIDF
		skills := x.live - x.nested
		groupCap := math.Inf(1)
		if folded && q.of >= 0 {
			df, ok := groupDF[q.of]
			if !ok {
				df = x.groupDFLocked(s, q.of)
				groupDF[q.of] = df
			}
			groupCap = idf(skills, df)
		}
		if !folded {
			if grouped { // every document is its own skill
				scale = q.skill * docIDF
			}
			matched = x.scoreDocsLocked(s.score, list, scale, &fs, matched)
			continue
		}
		inTerm := s.inTerm[:0]
		for _, p := range list {
			slot := p.slot()
			e := &x.docs[slot]
			w := ownWeight(p, e, &fs)
			// The skill's document: its own fields, or its references
			// field. Only a nested document's own score is ever shown
			// (Matched), so only a nested one keeps it: most postings are
			// skills', and scoring them twice cost about a fifth of a
			// grouped search (docs/decisions.md D82).
			g := e.group
			if g != slot {
				if s.score[slot] == 0 {
					matched = append(matched, slot)
				}
				s.score[slot] += scale * w / (k1 + w)
				tf := 0
				for f := range numFields {
					tf += int(p.tf(f))
				}
				norm := 1 - refB + refB*float64(x.docs[g].refLen)/refPivot
				w = x.tuning.refWeight * float64(tf) / norm
			}
			if s.acc[g] == 0 {
				inTerm = append(inTerm, g)
			}
			s.acc[g] += w
		}
		groupIDF := math.Min(idf(skills, len(inTerm)), groupCap)
		for _, g := range inTerm {
			if s.best[g] == 0 {
				groups = append(groups, g)
			}
			w := s.acc[g]
			s.best[g] += q.skill * groupIDF * w / (k1 + w)
			s.acc[g] = 0
		}
		s.inTerm = inTerm[:0]
	}
	var hits []Hit
	total := len(matched)
	if folded {
		hits = x.groupsLocked(s, matched, groups, limit)
		total = len(groups)
		for _, g := range groups {
			s.best[g] = 0
		}
		s.groups = groups[:0]
	} else {
		hits = x.bestLocked(s.score, matched, limit)
	}
	for _, d := range matched {
		s.score[d] = 0
	}
	s.touched = matched[:0]
	return hits, total
}

// fieldScale is what a search weighs a field's term frequency by: its
// weight, its length normalisation b and the length it is normalised
// against (the collection's average, or the body's fixed pivot).
type fieldScale struct {
	weight, b, avg [numFields]float64
}

// ownWeight is a posting's weighted term frequency over its document's
// own fields, each length-normalised (BM25F before saturation).
func ownWeight(p posting, e *entry, fs *fieldScale) float64 {
	w := 0.0
	for f := range numFields {
		if tf := p.tf(f); tf > 0 {
			norm := 1 - fs.b[f] + fs.b[f]*float64(e.len[f])/fs.avg[f]
			w += fs.weight[f] * float64(tf) / norm
		}
	}
	return w
}

// scoreDocsLocked adds one term's share, scale times its saturated
// weight, to the score of every document in list, and returns matched
// with the documents it scored first.
func (x *Index) scoreDocsLocked(score []float64, list []posting, scale float64, fs *fieldScale, matched []int32) []int32 {
	for _, p := range list {
		slot := p.slot()
		w := ownWeight(p, &x.docs[slot], fs)
		if score[slot] == 0 {
			matched = append(matched, slot)
		}
		score[slot] += scale * w / (k1 + w)
	}
	return matched
}

// groupDFLocked counts the groups that term tid's documents fold into:
// the df of a skill-level idf. It marks them in s.acc, which it finds and
// leaves all zero.
func (x *Index) groupDFLocked(s *scratch, tid int32) int {
	seen := s.inTerm[:0]
	for _, p := range x.postings[tid] {
		if g := x.docs[p.slot()].group; s.acc[g] == 0 {
			s.acc[g] = 1
			seen = append(seen, g)
		}
	}
	for _, g := range seen {
		s.acc[g] = 0
	}
	s.inTerm = seen[:0]
	return len(seen)
}

// groupsLocked keeps the limit best of the scored groups and lists under
// each its matched nested documents, best first by their own score.
func (x *Index) groupsLocked(s *scratch, matched, groups []int32, limit int) []Hit {
	hits := x.bestLocked(s.best, groups, limit)
	at := make(map[int32]int, len(hits))
	for i, h := range hits {
		at[x.byID[h.ID]] = i
	}
	for _, d := range matched {
		g := x.docs[d].group
		if g == d {
			continue
		}
		if i, ok := at[g]; ok {
			hits[i].Matched = append(hits[i].Matched, Hit{ID: x.docs[d].id, Score: s.score[d]})
		}
	}
	for i := range hits {
		slices.SortFunc(hits[i].Matched, compareHits)
	}
	return hits
}

// better orders hits: higher score first, then by id.
func better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.ID < b.ID
}

// bestLocked selects the limit best of the matched documents, best first.
// A heap of limit entries, not a sort of every match: with related stems
// a query matches most of a large index.
func (x *Index) bestLocked(score []float64, matched []int32, limit int) []Hit {
	heap := make([]Hit, 0, min(limit, len(matched))) // heap[0] is the worst kept
	down := func(i int) {
		for {
			w, l, r := i, 2*i+1, 2*i+2
			if l < len(heap) && better(heap[w], heap[l]) {
				w = l
			}
			if r < len(heap) && better(heap[w], heap[r]) {
				w = r
			}
			if w == i {
				return
			}
			heap[i], heap[w] = heap[w], heap[i]
			i = w
		}
	}
	for _, d := range matched {
		if len(heap) == limit && score[d] < heap[0].Score {
			continue // cannot be better than the worst kept
		}
		h := Hit{ID: x.docs[d].id, Score: score[d]}
		if len(heap) < limit {
			heap = append(heap, h)
			for i := len(heap) - 1; i > 0; {
				p := (i - 1) / 2
				if !better(heap[p], heap[i]) {
					break
				}
				heap[i], heap[p] = heap[p], heap[i]
				i = p
			}
			continue
		}
		if better(h, heap[0]) {
			heap[0] = h
			down(0)
		}
	}
	slices.SortFunc(heap, compareHits)
	return heap
}

func compareHits(a, b Hit) int {
	if better(a, b) {
		return -1
	}
	if better(b, a) {
		return 1
	}
	return 0
}
