package search

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/skillmd"
)

// Embedder turns texts into vectors: one per text, in order, all of one
// length. It is how a deployment with an encoder adds a dense ranking to
// skill::search (docs/search.md#an-optional-embedder); the worker adapts
// the iii function the config names to it. Embed must return when ctx
// ends: that is how a hanging encoder is timed out.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// DefaultEmbedTimeout bounds one call to the embedder when
// SearcherConfig.EmbedTimeout is not set.
const DefaultEmbedTimeout = 2 * time.Second

// Bounds on what the embedder is asked and what it may answer.
const (
	// maxEmbedBatch is how many texts one call carries: an index of
	// thousands of skills is embedded in calls the encoder can answer
	// within the timeout.
	maxEmbedBatch = 32
	// maxEmbedTextRunes cuts a document's text: its title, description
	// and headings say what it is for; a bounded text keeps each call's
	// cost predictable.
	maxEmbedTextRunes = 1000
	// maxDimension refuses vectors no encoder makes, before they cost
	// memory for every skill.
	maxDimension = 16384
)

// The wait before the embedder is asked again for the vectors it failed
// to give: doubled at each failure up to the maximum, so an absent
// embedder costs a call every few minutes, not a loop.
const (
	embedRetryMin = 5 * time.Second
	embedRetryMax = 5 * time.Minute
)

// The embedder's states in EmbedderStatus.
const (
	EmbedderOK      = "ok"
	EmbedderFailing = "failing"
)

// EmbedderStatus is what skills::diagnostics says of the embedder.
type EmbedderStatus struct {
	// Function names the embedder (the iii function id).
	Function string
	// State is EmbedderOK, or EmbedderFailing since its last call failed
	// (searches then answer lexical results).
	State string
	// Vectors and Waiting count the documents with a vector and those
	// still without one.
	Vectors, Waiting int
	// Dimension is the vectors' length, 0 before the first.
	Dimension int
	// LastError and LastErrorAt say what last went wrong, and when.
	LastError   string
	LastErrorAt time.Time
}

// dense is the optional dense side of the ranking: the embedder, the
// vectors it gave, and how its calls have been going.
type dense struct {
	embedder Embedder
	name     string
	timeout  time.Duration
	log      *zap.Logger
	store    *vectorStore

	mu        sync.Mutex
	failing   bool
	lastErr   string
	lastErrAt time.Time

	retry time.Duration // Follow's wait before it asks again after a failure; only Follow uses it
}

// embedText is what represents a document to the embedder: its title,
// whole description and headings, cut at maxEmbedTextRunes. The author's
// own words for what a skill is for and when to use it, and its outline,
// not its body: the body is long, mostly instructions, and a dense
// signal over whole documents did no better in the offline trial
// (docs/search.md#a-dense-signal-fused-with-bm25f-tried-not-kept-protocol-written-before-measuring).
func embedText(d Doc) string {
	text := strings.TrimSpace(d.Title + "\n" + d.Description + "\n" + d.Headings)
	cut, _ := skillmd.CutRunes(text, maxEmbedTextRunes)
	return cut
}

// embed asks the embedder for texts' vectors within the timeout and
// checks them against dim (0: any length the answer agrees on). Every
// answer is noted for diagnostics.
func (d *dense) embed(ctx context.Context, texts []string, dim int) ([][]float32, error) {
	callCtx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	vecs, err := d.embedder.Embed(callCtx, texts)
	if err == nil {
		vecs, err = checkVectors(vecs, len(texts), dim)
	} else if errors.Is(callCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		err = fmt.Errorf("no answer within %s: %w", d.timeout, err)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err() // the search or the worker ended: not the embedder's fault
	}
	d.note(err)
	return vecs, err
}

// checkVectors returns vecs scaled to unit length (new slices), or why
// they are not n vectors of one length (dim when dim > 0) of finite,
// non-zero numbers: such an answer is never stored.
func checkVectors(vecs [][]float32, n, dim int) ([][]float32, error) {
	if len(vecs) != n {
		return nil, fmt.Errorf("answered %d vectors for %d texts; want one per text, in order", len(vecs), n)
	}
	out := make([][]float32, len(vecs))
	for i, v := range vecs {
		if dim == 0 {
			dim = len(v)
		}
		switch {
		case len(v) == 0:
			return nil, fmt.Errorf("vector %d is empty; want %s", i, lengthWanted(dim))
		case len(v) != dim:
			return nil, fmt.Errorf("vector %d has %d numbers; want %s", i, len(v), lengthWanted(dim))
		case len(v) > maxDimension:
			return nil, fmt.Errorf("vector %d has %d numbers; at most %d", i, len(v), maxDimension)
		}
		var sum float64
		for j, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("vector %d holds %v at %d; want finite numbers", i, x, j)
			}
			sum += float64(x) * float64(x)
		}
		if sum == 0 || math.IsInf(sum, 0) {
			return nil, fmt.Errorf("vector %d has no direction (all zeros); it cannot be compared", i)
		}
		norm := math.Sqrt(sum)
		unit := make([]float32, len(v))
		for j, x := range v {
			unit[j] = float32(float64(x) / norm)
		}
		out[i] = unit
	}
	return out, nil
}

func lengthWanted(dim int) string {
	return fmt.Sprintf("%d numbers, the length of the vectors before", dim)
}

// note records the outcome of a call, and logs when the embedder starts
// failing or answers again: once per change, never once per search.
func (d *dense) note(err error) {
	d.mu.Lock()
	was := d.failing
	d.failing = err != nil
	if err != nil {
		d.lastErr, d.lastErrAt = err.Error(), time.Now()
	}
	d.mu.Unlock()
	switch {
	case err != nil && !was:
		d.log.Warn("search: the embedder failed; searches answer lexical results until it answers again", zap.String("function", d.name), zap.Error(err))
	case err == nil && was:
		d.log.Info("search: the embedder answers again; searches fuse its ranking with the lexical one", zap.String("function", d.name))
	}
}

// embedPending embeds the documents still without a vector, maxEmbedBatch
// texts a call, and returns how long to wait before trying again when a
// call failed (0: nothing left to do).
func (d *dense) embedPending(ctx context.Context) time.Duration {
	keys, texts := d.store.pending()
	for i := 0; i < len(keys); i += maxEmbedBatch {
		j := min(i+maxEmbedBatch, len(keys))
		vecs, err := d.embed(ctx, texts[i:j], d.store.dimension())
		if ctx.Err() != nil {
			return 0
		}
		if err != nil {
			d.retry = min(max(2*d.retry, embedRetryMin), embedRetryMax)
			return d.retry
		}
		d.store.store(keys[i:j], vecs)
	}
	d.retry = 0
	return 0
}

// queryVector embeds a search's query; false when there is nothing to
// compare it with yet or the embedder failed (the search then answers as
// if no embedder were configured).
func (d *dense) queryVector(ctx context.Context, query string) ([]float32, bool) {
	dim := d.store.dimension()
	if dim == 0 {
		return nil, false
	}
	vecs, err := d.embed(ctx, []string{query}, dim)
	if err != nil {
		return nil, false
	}
	return vecs[0], true
}

// status is the embedder's EmbedderStatus.
func (d *dense) status() EmbedderStatus {
	vectors, waiting := d.store.counts()
	st := EmbedderStatus{Function: d.name, State: EmbedderOK, Vectors: vectors, Waiting: waiting, Dimension: d.store.dimension()}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.failing {
		st.State = EmbedderFailing
	}
	st.LastError, st.LastErrorAt = d.lastErr, d.lastErrAt
	return st
}
