package engine

import (
	"encoding/json"
	"strings"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

var triggersListIn = &inputStruct{name: "TriggersListInput", fields: []field{
	optString("search"), optString("prefix"), optString("worker"),
	{name: "include_internal", kind: kindBool, optional: true},
}}

// triggersList answers engine::triggers::list: the trigger types (not the
// bindings) with their owning worker (and, with Options.Namespaces, the
// namespace each serves), sorted by id then namespace, hiding engine::*
// unless include_internal is set. A worker uses it to learn whether a type it
// wants to bind exists (a binding of a missing type is parked silently).
func triggersList(s *Engine, _ string, data json.RawMessage) (json.RawMessage, *wire.ErrorBody) {
	a, e := triggersListIn.decode("engine::triggers::list", data)
	if e != nil {
		return nil, e
	}
	includeInternal, _ := a["include_internal"].(bool)
	prefix, hasPrefix := a.optStr("prefix")
	worker, hasWorker := a.optStr("worker")
	search, _ := a.optStr("search")
	needle := strings.ToLower(search)
	rows := []map[string]any{}
	s.mu.Lock()
	for _, e := range nsAll(s.types, s.nsTypes) {
		id, t := e.id, e.v
		name := t.worker
		if t.provider != nil {
			name = firstSegment(t.id)
			if t.provider.meta.name != nil {
				name = *t.provider.meta.name
			}
		}
		switch {
		case !includeInternal && strings.HasPrefix(id, "engine::"),
			hasPrefix && !strings.HasPrefix(id, prefix),
			hasWorker && worker != name,
			needle != "" && !strings.Contains(strings.ToLower(id), needle) && !strings.Contains(strings.ToLower(t.description), needle):
			continue
		}
		row := map[string]any{"id": id, "worker_name": name, "description": t.description}
		if s.namespaces {
			row["namespace"] = e.namespace
		}
		rows = append(rows, row)
	}
	s.mu.Unlock()
	return mustEncode(map[string]any{"triggers": rows}), nil
}
