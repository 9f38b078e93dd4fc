package engine

import (
	"slices"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/iii-hq/skills-go/internal/redistest"
)

// stateBackend is one place the default namespace's store can live: in
// memory, in a data directory's log (D67) or in Redis (D71). The state
// semantics tests run against each (docs/engine.md).
type stateBackend struct {
	name string
	// options sets where state lives; a Redis backend starts a real
	// redis-server for the test.
	options func(t testing.TB, opts Options) Options
	// keepsEmptiedScopes: a scope emptied by deletes is still listed by
	// state::list_groups. Redis removes a hash with its last field, so
	// iii's Redis adapter does not list it (D71).
	keepsEmptiedScopes bool
	// ordered: state::list gives any scope in first-write order. Redis
	// keeps that order only for a small hash (D71).
	ordered bool
}

var stateBackends = []stateBackend{
	{name: "memory", options: func(_ testing.TB, o Options) Options { return o }, keepsEmptiedScopes: true, ordered: true},
	{name: "data", options: func(t testing.TB, o Options) Options { o.DataDir = t.TempDir(); return o }, keepsEmptiedScopes: true, ordered: true},
	{name: "redis", options: func(t testing.TB, o Options) Options {
		o.StateURL = redistest.NewServer(t, redistest.Options{}).URL
		return o
	}},
}

// forEachBackend runs test once per backend, each with an engine whose
// state lives there.
func forEachBackend(t *testing.T, opts Options, test func(t *testing.T, b stateBackend, s *Engine)) {
	forBackends(t, nil, opts, test)
}

// forBackends is forEachBackend over the backends named (all when names
// is nil).
func forBackends(t *testing.T, names []string, opts Options, test func(t *testing.T, b stateBackend, s *Engine)) {
	for _, b := range stateBackends {
		if names != nil && !slices.Contains(names, b.name) {
			continue
		}
		t.Run(b.name, func(t *testing.T) {
			o := opts
			if o.Logger == nil {
				o.Logger = zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel))
			}
			test(t, b, newTestServerWith(t, b.options(t, o)))
		})
	}
}
