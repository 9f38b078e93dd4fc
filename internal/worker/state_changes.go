package worker

import (
	"time"

	"context"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/diagnostics"
	"github.com/iii-hq/skills-go/internal/registry"
)

// announceStored is the catalog's OnChange: a stored skill or prompt that
// another writer changed (another replica, another engine sharing the
// store, any state client), found by a state event, a reconcile or a load,
// is announced on skills::on-change or prompts::on-change once, as a
// registration would be (docs/decisions.md D73). The fan-out never
// blocks (iii.Provider.Fire), so the catalog's goroutines call it
// directly, with the context of the load or re-read that found the
// change: the catalog's, ended at the worker's Close.
func announceStored(reg *registry.Registry, scopes config.Scopes) func(context.Context, catalog.Change) {
	return func(ctx context.Context, ch catalog.Change) {
		switch ch.Scope {
		case scopes.Skills:
			reg.StoredSkillChanged(ctx, ch.Key, ch.Removed)
		case scopes.Prompts:
			reg.StoredPromptChanged(ctx, ch.Key, ch.Removed)
		}
	}
}

// freshnessRow is the catalog's Freshness as skills::diagnostics shows it.
func freshnessRow(f catalog.Freshness) *diagnostics.Freshness {
	return &diagnostics.Freshness{
		LastLoad:           rfc3339(f.LastLoad),
		LastReconcile:      rfc3339(f.LastReconcile),
		ReconcileMS:        f.ReconcileInterval.Milliseconds(),
		Reconciles:         f.Reconciles,
		ReconcileBytes:     f.ReconcileBytes,
		ReconcileTookMS:    f.ReconcileTook.Milliseconds(),
		ChangesByEvent:     f.ByEvent,
		ChangesByReconcile: f.ByReconcile,
		ChangesByLoad:      f.ByLoad,
		Signal:             f.Signal,
		ChangesBySignal:    f.BySignal,
	}
}

// rfc3339 is t in UTC, as the embedder's last_error_at; "" for the zero time.
func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}
