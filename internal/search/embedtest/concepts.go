// Package embedtest is a deterministic embedder for tests and
// benchmarks of skill::search's dense ranking (docs/search.md#an-optional-embedder).
// It shows that the wiring works, never that dense ranking helps: its
// vectors know only the synonyms a test gives them.
package embedtest

import (
	"context"
	"hash/fnv"
	"strings"
	"unicode"
)

// hashBuckets hold the words of no concept, by hash, so that every text
// with a word has a vector with a direction.
const hashBuckets = 32

// conceptWeight makes a shared concept outweigh the words of none (stop
// words, mostly), as an encoder's training would.
const conceptWeight = 4

// Concepts embeds a text as a bag of concepts: each word adds
// conceptWeight to the bucket of its concept (the synonyms a test lists
// share one), any other word one to one of hashBuckets buckets by hash. Two texts that share no word
// but the same concepts point the same way. Safe for concurrent use.
type Concepts struct {
	bucket  map[string]int
	buckets uint32 // the first buckets hold words of no concept, by hash
	dim     int
}

// NewConcepts returns an embedder where the words of each group share a
// concept. Words are matched lowercased.
func NewConcepts(groups ...[]string) *Concepts {
	c := &Concepts{bucket: map[string]int{}, buckets: hashBuckets, dim: hashBuckets + len(groups)}
	for i, g := range groups {
		for _, w := range g {
			c.bucket[strings.ToLower(w)] = hashBuckets + i
		}
	}
	return c
}

// NewHashed returns an embedder of no concepts whose vectors have dim
// numbers, every word hashed into one: for benchmarks, where the cost of
// comparing vectors of an encoder's usual length matters and their
// meaning does not.
func NewHashed(dim int) *Concepts {
	return &Concepts{bucket: map[string]int{}, buckets: uint32(max(dim, 1)), dim: max(dim, 1)}
}

// Dimension is the length of every vector.
func (c *Concepts) Dimension() int { return c.dim }

// Embed returns one vector per text; it fails only when ctx has ended.
func (c *Concepts) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = c.Vector(t)
	}
	return out, nil
}

// Vector is text's vector: all zeros for a text without a word.
func (c *Concepts) Vector(text string) []float32 {
	v := make([]float32, c.dim)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if b, ok := c.bucket[w]; ok {
			v[b] += conceptWeight
			continue
		}
		h := fnv.New32a()
		h.Write([]byte(w)) //nolint:errcheck // a hash never fails to write
		v[h.Sum32()%c.buckets]++
	}
	return v
}
