package worker

import (
	"context"
	"encoding/json"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/usage"
)

// UsageScopeSuffix follows the skills scope's name in the name of the
// state scope that holds each replica's usage record
// (docs/decisions.md D84): "skills" keeps its usage in "skills_usage".
const UsageScopeSuffix = "_usage"

// usageParts are the usage counting's writer and reader: the flusher
// writes this replica's record under its own key, the reporter serves
// skills::usage from every replica's.
type usageParts struct {
	flusher  *usage.Flusher
	reporter *usage.Reporter
}

// newUsage wires usage counting over view's counter for one replica
// (replica: a key no other replica has); pageSize is the page_size in
// force (live, D43), which pages skills::usage (D87).
func newUsage(cfg config.Config, client usage.Caller, view *catalog.View, replica string, log *zap.Logger, pageSize func() int) usageParts {
	scope := cfg.Scopes.Skills + UsageScopeSuffix
	stored := func(ctx context.Context) ([]json.RawMessage, error) {
		ctx, cancel := context.WithTimeout(ctx, cfg.StateTimeout())
		defer cancel()
		res, err := client.Call(ctx, "state::list", map[string]string{"scope": scope})
		if err != nil {
			return nil, err
		}
		return catalog.ListValues(res), nil
	}
	served := func(ctx context.Context) ([]string, error) {
		// Without the stored rows the files are still served: their ids.
		l, _ := view.Skills(ctx)
		return l.IDs(), nil
	}
	return usageParts{
		flusher: usage.NewFlusher(usage.FlusherConfig{Counter: view.Usage(), Caller: client, Scope: scope, Replica: replica,
			Stored: stored, Timeout: cfg.StateTimeout(), Logger: log}),
		reporter: usage.NewReporter(usage.ReporterConfig{Counter: view.Usage(), Replica: replica, Stored: stored, Served: served,
			PageSize: pageSize}),
	}
}
