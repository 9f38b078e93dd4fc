package search

import "slices"

// Reciprocal rank fusion (Cormack, Clarke and Büttcher, 2009): each
// ranking gives a candidate (rrfK+1)/(rrfK+rank), rank from 1, so the
// first of one ranking scores 1 and the first of both 2. Ranks, not
// scores, are fused: BM25F scores and cosines have no common scale, and
// an encoder's cosines differ from another's. fuseDepth is how deep each
// ranking is read.
const (
	rrfK      = 60
	fuseDepth = 100
)

// fusedSearch ranks in's query by the lexical index and by the cosine of
// q with every document that has a vector, and fuses the two rankings:
// skills (groups) when in is grouped, documents when not. A document
// without a vector yet still ranks lexically. total is the lexical total
// plus the dense candidates the lexical ranking did not list.
func (s *Searcher) fusedSearch(in Request, q []float32) ([]Hit, int) {
	search := s.idx.Search
	if in.grouped() {
		search = s.idx.SearchGroups
	}
	lexical, total := search(in.Query, max(in.Limit, fuseDepth))
	ids, cos := s.dense.store.similar(q)
	near := s.idx.nearest(ids, cos, in.grouped(), fuseDepth)
	hits, denseOnly := fuse(lexical, near)
	return hits[:min(len(hits), in.Limit)], total + denseOnly
}

// fuse merges two rankings by reciprocal rank, best first (ties by id);
// a hit keeps the references lexical listed under it. denseOnly counts
// the hits only near had.
func fuse(lexical, near []Hit) (hits []Hit, denseOnly int) {
	at := make(map[string]int, len(lexical)+len(near))
	for rank, h := range lexical {
		at[h.ID] = len(hits)
		hits = append(hits, Hit{ID: h.ID, Score: rrf(rank), Matched: h.Matched})
	}
	for rank, h := range near {
		if i, ok := at[h.ID]; ok {
			hits[i].Score += rrf(rank)
			continue
		}
		denseOnly++
		hits = append(hits, Hit{ID: h.ID, Score: rrf(rank)})
	}
	slices.SortStableFunc(hits, compareHits)
	return hits, denseOnly
}

// rrf is the share of a candidate at rank (from 0) of one ranking.
func rrf(rank int) float64 {
	return float64(rrfK+1) / float64(rrfK+rank+1)
}

// nearest are the depth documents (or groups, when grouped, each scoring
// its best member's cosine, as SearchGroups does) most similar to the
// query, best first, of those the index holds (the vectors may lag an
// update by a moment) with a positive cosine: a document at a right
// angle or beyond is not similar at all. cos[i] is ids[i]'s cosine.
func (x *Index) nearest(ids []string, cos []float32, grouped bool, depth int) []Hit {
	x.mu.RLock()
	defer x.mu.RUnlock()
	s := scratchPool.Get().(*scratch)
	defer scratchPool.Put(s)
	if len(s.best) < len(x.docs) {
		s.best = make([]float64, len(x.docs))
	}
	slots := s.groups[:0]
	for i, id := range ids {
		slot, ok := x.byID[id]
		if !ok || cos[i] <= 0 {
			continue
		}
		if grouped {
			slot = x.docs[slot].group
		}
		if s.best[slot] == 0 {
			slots = append(slots, slot)
		}
		s.best[slot] = max(s.best[slot], float64(cos[i]))
	}
	hits := x.bestLocked(s.best, slots, depth)
	for _, slot := range slots {
		s.best[slot] = 0
	}
	s.groups = slots[:0]
	return hits
}
