package registry

import "github.com/iii-hq/skills-go/internal/config"

// Budgets are the registry's limits that may change while it serves: the
// worker applies a new page_size, index_max_tokens or max_response_bytes
// from the engine's configuration worker without a restart
// (docs/data-path.md#live-configuration). Each answer reads them once,
// so it is built within one set of budgets, and an answer kept per
// listing version is kept per budgets too.
type Budgets struct {
	// PageSize is how many entries a resources-list or mcp-list answer
	// holds; 0 is everything (D43).
	PageSize int
	// IndexMaxTokens bounds iii://skills; 0 is no bound (D44).
	IndexMaxTokens int
	// MaxResponseBytes bounds every response (D26); zero means 16 MiB.
	MaxResponseBytes int
}

// SetBudgets replaces the budgets; calls already answering keep the ones
// they read. Safe for concurrent use with every handler.
func (r *Registry) SetBudgets(b Budgets) {
	if b.MaxResponseBytes <= 0 {
		b.MaxResponseBytes = config.DefaultMaxResponseBytes
	}
	r.limits.Store(&b)
}

// Budgets returns the budgets in force.
func (r *Registry) Budgets() Budgets { return *r.limits.Load() }

// budgeted is the key of an answer kept per listing version: the version
// and the budgets it was built within.
type budgeted struct {
	version any
	budgets Budgets
}
