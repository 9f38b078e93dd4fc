package engine

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// Function introspection from the in-process iii-engine-functions worker:
// engine::functions::list and engine::functions::info (where the
// registered schemas are visible). The worker functions of the same
// in-process worker are in builtins_workers.go.

// functionInfoBatchMax caps engine::functions::info's function_ids.
const functionInfoBatchMax = 32

var (
	functionsListIn = &inputStruct{name: "FunctionsListInput", fields: []field{
		optString("search"), optString("prefix"), optString("worker"),
		{name: "workers", kind: kindStrings, optional: true},
		{name: "include_internal", kind: kindBool, optional: true},
	}}
	functionInfoIn = &inputStruct{name: "FunctionInfoInput", fields: []field{
		optString("function_id"), {name: "function_ids", kind: kindStrings, optional: true},
	}}
	// functionInfoNamespacedIn is FunctionInfoInput with engine 0.23's
	// namespace (Options.Namespaces).
	functionInfoNamespacedIn = &inputStruct{name: "FunctionInfoInput", fields: []field{
		optString("function_id"), {name: "function_ids", kind: kindStrings, optional: true},
		optString("namespace"),
	}}
)

const functionsInfoText = "Inspect functions: schemas, owner, and registered triggers. Single `function_id`, " +
	"or `function_ids: [...]` (max 32) to fetch several contracts in one call."

// optString declares an Option<String> input field.
func optString(name string) field { return field{name: name, optional: true} }

func engineBuiltins() []builtinSpec {
	return []builtinSpec{
		{engineFnWorkerName, "engine::functions::list", "List registered functions with their owning worker name.", functionsList},
		{engineFnWorkerName, "engine::functions::info", functionsInfoText, functionsInfo},
		{engineFnWorkerName, "engine::triggers::list", "List registered trigger types with their owning worker name.", triggersList},
		{engineFnWorkerName, "engine::workers::list", "List workers connected to the engine.", workersList},
		{engineFnWorkerName, "engine::workers::register", "Register worker metadata", registerWorker},
	}
}

// functionsList lists functions, hiding engine::* (but not
// engine::queue::*) and metadata.internal ones unless include_internal is
// set. Sorted by id, or by match quality then id when searching.
func functionsList(s *Engine, _ string, data json.RawMessage) (json.RawMessage, *wire.ErrorBody) {
	a, e := functionsListIn.decode("engine::functions::list", data)
	if e != nil {
		return nil, e
	}
	includeInternal, _ := a["include_internal"].(bool)
	prefix, hasPrefix := a.optStr("prefix")
	worker, hasWorker := a.optStr("worker")
	workers, _ := a.strs("workers")
	search, _ := a.optStr("search")
	needle := strings.ToLower(search)
	type row struct {
		id, ns string
		rank   int
		fields map[string]any
	}
	var rows []row
	s.mu.Lock()
	for _, e := range nsAll(s.functions, s.nsFunctions) {
		f := e.v
		if !includeInternal && (isEngineInternal(f.id) || taggedInternal(f.metadata)) {
			continue
		}
		if hasPrefix && !strings.HasPrefix(f.id, prefix) {
			continue
		}
		name := s.workerNameLocked(f)
		if (hasWorker || len(workers) > 0) && !(hasWorker && worker == name) && !slices.Contains(workers, name) {
			continue
		}
		if needle != "" && !strings.Contains(strings.ToLower(f.id), needle) &&
			!strings.Contains(strings.ToLower(f.description), needle) {
			continue
		}
		rows = append(rows, row{f.id, e.namespace, searchRank(f.id, needle), s.summaryLocked(f)})
	}
	s.mu.Unlock()
	slices.SortFunc(rows, func(x, y row) int {
		if needle != "" {
			if c := cmp.Compare(x.rank, y.rank); c != 0 {
				return c
			}
		}
		return cmp.Or(cmp.Compare(x.id, y.id), cmp.Compare(x.ns, y.ns))
	})
	out := make([]map[string]any, 0, len(rows))
	for _, r := range rows {
		out = append(out, r.fields)
	}
	return mustEncode(map[string]any{"functions": out}), nil
}

// summaryLocked is a function's row in engine::functions::list, which
// names its namespace with Options.Namespaces.
func (s *Engine) summaryLocked(f *function) map[string]any {
	row := map[string]any{"function_id": f.id, "worker_name": s.workerNameLocked(f)}
	if s.namespaces {
		row["namespace"] = f.ns()
	}
	if f.description != "" {
		row["description"] = f.description
	}
	if f.metadata != nil {
		row["metadata"] = f.metadata
	}
	return row
}

func isEngineInternal(id string) bool {
	return strings.HasPrefix(id, "engine::") && !strings.HasPrefix(id, "engine::queue::")
}

func taggedInternal(metadata json.RawMessage) bool {
	var m struct {
		Internal any `json:"internal"`
	}
	if json.Unmarshal(metadata, &m) != nil {
		return false
	}
	b, _ := m.Internal.(bool)
	return b
}

// searchRank: 0 when the needle anchors the id (prefix or a whole "::"
// segment), 1 for a substring of the id, 2 for a description-only match.
func searchRank(id, needle string) int {
	lower := strings.ToLower(id)
	switch {
	case strings.HasPrefix(lower, needle) || slices.Contains(strings.Split(lower, "::"), needle):
		return 0
	case strings.Contains(lower, needle):
		return 1
	}
	return 2
}

func firstSegment(id string) string {
	seg, _, _ := strings.Cut(id, "::")
	return seg
}

// functionsInfo returns one function's detail (function_id) or a batch
// (function_ids), with the registered request/response formats as
// request_schema/response_schema. With Options.Namespaces an optional
// namespace selects where each id is looked up (infoNamespaceLocked).
func functionsInfo(s *Engine, _ string, data json.RawMessage) (json.RawMessage, *wire.ErrorBody) {
	in := functionInfoIn
	if s.namespaces {
		in = functionInfoNamespacedIn
	}
	a, e := in.decode("engine::functions::info", data)
	if e != nil {
		return nil, e
	}
	one, hasOne := a.optStr("function_id")
	many, hasMany := a.strs("function_ids")
	explicit, hasExplicit := a.optStr("namespace")
	invalid := func(msg string) (json.RawMessage, *wire.ErrorBody) {
		return nil, &wire.ErrorBody{Code: "INVALID_ARGUMENTS", Message: msg}
	}
	switch {
	case hasOne && hasMany:
		return invalid("pass either `function_id` or `function_ids`, not both")
	case !hasOne && !hasMany:
		return invalid("missing field `function_id` (or `function_ids` for a batch)")
	case hasOne:
		s.mu.Lock()
		defer s.mu.Unlock()
		ns, ok := s.infoNamespaceLocked(one, explicit, hasExplicit)
		if !ok {
			return nil, s.infoNotFoundLocked(one)
		}
		return mustEncode(s.detailLocked(ns, one)), nil
	}
	var ids []string
	for _, id := range many {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return invalid("`function_ids` must be a non-empty array of function ids")
	}
	if len(ids) > functionInfoBatchMax {
		return invalid(fmt.Sprintf("too many function_ids (max %d)", functionInfoBatchMax))
	}
	entries := make([]any, 0, len(ids))
	s.mu.Lock()
	for _, id := range ids {
		if ns, ok := s.infoNamespaceLocked(id, explicit, hasExplicit); ok {
			entries = append(entries, s.detailLocked(ns, id))
		} else {
			entries = append(entries, map[string]any{"function_id": id, "error": "not_found"})
		}
	}
	s.mu.Unlock()
	return mustEncode(map[string]any{"functions": entries}), nil
}

// infoNamespaceLocked is where engine::functions::info looks id up: in
// the namespace the caller named, strictly; otherwise in the default
// namespace when the id is there, else in the only namespace that has it.
// false when that finds nothing (an id in several other namespaces is
// ambiguous). Without Options.Namespaces there is only the default one.
func (s *Engine) infoNamespaceLocked(id, explicit string, hasExplicit bool) (string, bool) {
	if hasExplicit {
		return explicit, s.functionLocked(explicit, id) != nil
	}
	known := nsOf(s.functions, s.nsFunctions, id)
	switch {
	case slices.Contains(known, DefaultNamespace):
		return DefaultNamespace, true
	case len(known) == 1:
		return known[0], true
	}
	return "", false
}

// infoNotFoundLocked is engine::functions::info's NOT_FOUND for id, which
// names the namespaces the id is in when there are any, as the engine's
// function_not_found does (even when the caller named a namespace).
func (s *Engine) infoNotFoundLocked(id string) *wire.ErrorBody {
	msg := fmt.Sprintf("Function '%s' is not registered.", id)
	if known := nsOf(s.functions, s.nsFunctions, id); len(known) > 0 {
		msg = fmt.Sprintf("Function '%s' is ambiguous: it is registered in namespace(s): %s. Pass `namespace` to select one.",
			id, strings.Join(known, ", "))
	}
	return &wire.ErrorBody{Code: "NOT_FOUND", Message: msg}
}

// detailLocked is engine::functions::info's detail of a function that
// exists, with the bindings whose function resolves to it.
func (s *Engine) detailLocked(ns, id string) map[string]any {
	f := s.functionLocked(ns, id)
	d := s.summaryLocked(f)
	if f.requestFormat != nil {
		d["request_schema"] = f.requestFormat
	}
	if f.responseFormat != nil {
		d["response_schema"] = f.responseFormat
	}
	refs := []map[string]any{}
	for _, tid := range slices.Sorted(maps.Keys(s.bindings)) {
		if b := s.bindings[tid]; b.functionID == id && b.target() == ns {
			refs = append(refs, map[string]any{"id": b.id, "trigger_type": b.triggerType, "config": b.config})
		}
	}
	d["registered_triggers"] = refs
	return d
}
