package catalog

import "sync"

// MinGeneration is how many values a generation holds at least before it
// is turned over between listings.
const MinGeneration = 1 << 14

// Generations keeps values by key between listings, bounded by what the
// listings use (docs/decisions.md D64): values live in two generations;
// each listing starts a new one (Turn), and what two listings in a row
// did not touch is forgotten. Between listings (reads of many keys, none
// listed) a generation that grows past twice what entered it from one
// listing to the next, and past its minimum, is turned over too: churn
// never grows it without bound. It is safe for concurrent use.
type Generations[V any] struct {
	mu        sync.Mutex
	cur, prev map[string]V
	least     int // the least limit
	limit     int // how many values cur holds before it is turned over
	entered   int // values put, or got from prev, since the last Turn
}

// NewGenerations returns empty generations of at least MinGeneration
// values each.
func NewGenerations[V any]() *Generations[V] { return newGenerations[V](MinGeneration) }

func newGenerations[V any](least int) *Generations[V] {
	return &Generations[V]{cur: map[string]V{}, prev: map[string]V{}, least: least, limit: least}
}

// Get returns the value kept for key, if any, and keeps it for the
// current generation.
func (g *Generations[V]) Get(key string) (V, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	v, ok := g.cur[key]
	if !ok {
		if v, ok = g.prev[key]; ok {
			g.cur[key] = v
			g.entered++
		}
	}
	return v, ok
}

// Put keeps v for key in the current generation, turning the generation
// over first when it is full.
func (g *Generations[V]) Put(key string, v V) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.cur) >= g.limit {
		g.prev, g.cur = g.cur, map[string]V{}
	}
	if _, ok := g.cur[key]; !ok {
		g.entered++
	}
	g.cur[key] = v
}

// Turn starts a generation, at a listing: the next listing forgets what
// neither it nor this one touched. The generation's limit becomes twice
// what entered the one ending (a listing whose values were all kept
// counts them as a listing that put them all), and at least the minimum.
func (g *Generations[V]) Turn() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.limit, g.entered = max(g.least, 2*g.entered), 0
	g.prev, g.cur = g.cur, map[string]V{}
}

// Len is how many values are kept, in both generations.
func (g *Generations[V]) Len() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.cur) + len(g.prev)
}
