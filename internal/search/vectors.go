package search

import (
	"crypto/sha256"
	"slices"
	"strings"
	"sync"
)

// textDigest names the text a vector was computed from: a vector is kept
// per digest, so a skill whose embedded text did not change is never
// embedded again, and one whose text changed is.
type textDigest [sha256.Size]byte

// vectorStore holds the documents' vectors, cached by the digest of the
// text embedded (docs/search.md#an-optional-embedder). Documents whose
// text has no vector yet wait in texts until the embedder answers. Safe
// for concurrent use.
type vectorStore struct {
	mu    sync.RWMutex
	docs  map[string]textDigest    // id → the digest of its text
	refs  map[textDigest]int       // how many documents share a text
	vecs  map[textDigest][]float32 // unit length, all of length dim
	texts map[textDigest]string    // the texts still without a vector
	dim   int                      // set by the first vectors stored
	rows  *packed                  // the vectors packed for comparison; nil after a change
}

func newVectorStore() *vectorStore {
	return &vectorStore{docs: map[string]textDigest{}, refs: map[textDigest]int{},
		vecs: map[textDigest][]float32{}, texts: map[textDigest]string{}}
}

// put records id's text: unchanged, nothing happens; new or changed, its
// vector is the cached one of that text, else the text waits for one.
func (v *vectorStore) put(id, text string) {
	d := sha256.Sum256([]byte(text))
	v.mu.Lock()
	defer v.mu.Unlock()
	if old, ok := v.docs[id]; ok {
		if old == d {
			return
		}
		v.releaseLocked(old)
	}
	v.docs[id] = d
	v.refs[d]++
	v.rows = nil
	if _, ok := v.vecs[d]; !ok {
		v.texts[d] = text
	}
}

// drop forgets id.
func (v *vectorStore) drop(id string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if d, ok := v.docs[id]; ok {
		delete(v.docs, id)
		v.releaseLocked(d)
		v.rows = nil
	}
}

// releaseLocked forgets a text no document holds any more, and its
// vector: the cache holds what is served, nothing else.
func (v *vectorStore) releaseLocked(d textDigest) {
	if v.refs[d]--; v.refs[d] <= 0 {
		delete(v.refs, d)
		delete(v.vecs, d)
		delete(v.texts, d)
	}
}

// pending are the texts waiting for a vector, in a stable order (by
// digest), for the embedder to be asked in batches.
func (v *vectorStore) pending() ([]textDigest, []string) {
	type waiting struct {
		d    textDigest
		text string
	}
	v.mu.RLock()
	all := make([]waiting, 0, len(v.texts))
	for d, text := range v.texts {
		all = append(all, waiting{d, text})
	}
	v.mu.RUnlock()
	slices.SortFunc(all, func(a, b waiting) int { return strings.Compare(string(a.d[:]), string(b.d[:])) })
	keys, texts := make([]textDigest, len(all)), make([]string, len(all))
	for i, w := range all {
		keys[i], texts[i] = w.d, w.text
	}
	return keys, texts
}

// store keeps vecs (checked by checkVectors, unit length) for the texts
// keys; a text no document holds any more is skipped.
func (v *vectorStore) store(keys []textDigest, vecs [][]float32) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for i, d := range keys {
		if v.refs[d] == 0 {
			continue
		}
		v.vecs[d] = vecs[i]
		delete(v.texts, d)
		v.dim = len(vecs[i])
		v.rows = nil
	}
}

// dimension is the length of every vector stored, 0 before the first.
func (v *vectorStore) dimension() int {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.dim
}

// counts are the documents with a vector and those waiting for one.
func (v *vectorStore) counts() (vectors, waiting int) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	for _, d := range v.docs {
		if _, ok := v.vecs[d]; ok {
			vectors++
		} else {
			waiting++
		}
	}
	return vectors, waiting
}

// similar is the cosine similarity of q (unit length, of the stored
// dimension) with every document that has a vector: ids and their
// cosines, in the same order. ids is shared: never change it.
func (v *vectorStore) similar(q []float32) (ids []string, cos []float32) {
	v.mu.RLock()
	rows, dim := v.rows, v.dim
	v.mu.RUnlock()
	if rows == nil {
		v.mu.Lock()
		v.packLocked()
		rows, dim = v.rows, v.dim
		v.mu.Unlock()
	}
	if len(q) != dim {
		return nil, nil
	}
	// rows is never changed once packed (a change packs anew), so it is
	// read without the lock.
	cos = make([]float32, len(rows.ids))
	for i := range cos {
		cos[i] = dot(rows.vecs[i*dim:(i+1)*dim], q)
	}
	return rows.ids, cos
}

// packed are the vectors of every document that has one, one after the
// other in one slice: comparing a query with ten thousand of them reads
// memory in order.
type packed struct {
	ids  []string
	vecs []float32
}

// packLocked builds rows; every change of docs or vecs drops it.
func (v *vectorStore) packLocked() {
	if v.rows != nil {
		return
	}
	p := &packed{}
	for id, d := range v.docs {
		if vec, ok := v.vecs[d]; ok {
			p.ids = append(p.ids, id)
			p.vecs = append(p.vecs, vec...)
		}
	}
	v.rows = p
}

// dot is the dot product of two vectors of one length, four numbers a
// step.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}
