package mcpskills

import "github.com/iii-hq/skills-go/internal/config"

// limits are the extension's budgets, replaced whole by SetBudgets so
// that each answer reads one set of them.
type limits struct {
	pageSize    int
	maxResponse int
}

// SetBudgets replaces the page size (0: everything) and the response
// budget (0: the config's default) while the extension serves: the worker
// applies a new page_size or max_response_bytes from the engine's
// configuration worker (docs/data-path.md#live-configuration). Safe for
// concurrent use with every handler.
func (x *Extension) SetBudgets(pageSize, maxResponseBytes int) {
	if maxResponseBytes <= 0 {
		maxResponseBytes = config.DefaultMaxResponseBytes
	}
	x.limits.Store(&limits{pageSize: pageSize, maxResponse: maxResponseBytes})
}
