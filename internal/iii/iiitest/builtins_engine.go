package iiitest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// The subset of the in-process iii-engine-functions worker that workers
// and tests rely on: worker metadata, worker listing and function
// introspection (schemas live in engine::functions::info).

const (
	// engineVersion is what in-process workers report as their version.
	engineVersion = "0.22.1"
	// workerTextMaxLen caps a worker's reported name and description.
	workerTextMaxLen = 280
	// functionInfoBatchMax caps engine::functions::info's function_ids.
	functionInfoBatchMax = 32
)

var (
	functionsListIn = &inputStruct{name: "FunctionsListInput", fields: []field{
		optString("search"), optString("prefix"), optString("worker"),
		{name: "workers", kind: kindStrings, optional: true},
		{name: "include_internal", kind: kindBool, optional: true},
	}}
	functionInfoIn = &inputStruct{name: "FunctionInfoInput", fields: []field{
		optString("function_id"), {name: "function_ids", kind: kindStrings, optional: true},
	}}
	workersListIn = &inputStruct{name: "WorkersListInput", fields: []field{
		optString("search"), optString("runtime"), optString("status"),
	}}
	telemetryMetaIn = &inputStruct{name: "WorkerConnectionTelemetryMeta", fields: []field{
		optString("language"), optString("project_name"), optString("framework"),
	}}
	registerWorkerIn = &inputStruct{name: "RegisterWorkerInput", fields: []field{
		{name: "_caller_worker_id"}, optString("runtime"), optString("version"), optString("name"),
		optString("description"), optString("os"),
		{name: "telemetry", kind: kindStruct, optional: true, nested: telemetryMetaIn},
		{name: "pid", kind: kindU32, optional: true}, optString("isolation"),
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
		{engineFnWorkerName, "engine::workers::list", "List workers connected to the engine.", workersList},
		{engineFnWorkerName, "engine::workers::register", "Register worker metadata", registerWorker},
	}
}

// registerWorker stores the calling connection's metadata (the caller is
// known from the injected _caller_worker_id) and answers {"success":true}.
func registerWorker(s *Server, data json.RawMessage) (json.RawMessage, *wire.ErrorBody) {
	a, e := registerWorkerIn.decode("engine::workers::register", data)
	if e != nil {
		return nil, e
	}
	id, ok := normalizeUUID(a.str("_caller_worker_id"))
	if ok {
		s.storeWorkerMeta(id, a)
		s.fire(triggerWorkersAvailable, map[string]any{"event": "worker_metadata_updated", "worker_id": id})
	} else {
		s.log.Error("engine::workers::register: invalid worker id", zap.String("worker_id", a.str("_caller_worker_id")))
	}
	return mustEncode(map[string]any{"success": true}), nil
}

func (s *Server) storeWorkerMeta(id string, a args) {
	s.mu.Lock()
	c := s.workers[id]
	if c == nil {
		s.mu.Unlock()
		return
	}
	m := &c.meta
	runtime := "unknown"
	if r, ok := a.optStr("runtime"); ok {
		runtime = r
	}
	m.runtime = &runtime
	m.version = optPtr(a.optStr("version"))
	if name := sanitizeWorkerText(a.optStr("name")); name != nil {
		m.name = name
	}
	if d := sanitizeWorkerText(a.optStr("description")); d != nil {
		m.description = d
	}
	if os := optPtr(a.optStr("os")); os != nil {
		m.os = os
	}
	m.telemetry = a["telemetry"]
	if pid, ok := a["pid"].(uint32); ok {
		m.pid = &pid
	}
	if iso := optPtr(a.optStr("isolation")); iso != nil {
		m.isolation = iso
	}
	s.notifyLocked()
	name, version := metaString(m.name), metaString(m.version)
	count := len(c.functionIDs)
	s.mu.Unlock()
	c.log.Info("worker registered", zap.Any("name", name), zap.String("runtime", runtime),
		zap.Any("version", version), zap.Int("functions", count))
}

func optPtr(s string, ok bool) *string {
	if !ok {
		return nil
	}
	return &s
}

// sanitizeWorkerText strips control and bidi characters, caps the length
// and trims, as the engine does; nothing left means "not given".
func sanitizeWorkerText(s string, ok bool) *string {
	if !ok {
		return nil
	}
	var b strings.Builder
	n := 0
	for _, r := range s {
		if unicode.IsControl(r) || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069) || r == 0x2028 || r == 0x2029 {
			continue
		}
		if n == workerTextMaxLen {
			break
		}
		b.WriteRune(r)
		n++
	}
	t := strings.TrimSpace(b.String())
	if t == "" {
		return nil
	}
	return &t
}

// workersList lists connected workers that reported a pid, plus the
// in-process workers, sorted by name then id.
func workersList(s *Server, data json.RawMessage) (json.RawMessage, *wire.ErrorBody) {
	a, e := workersListIn.decode("engine::workers::list", data)
	if e != nil {
		return nil, e
	}
	type row struct {
		sortName, id string
		fields       map[string]any
	}
	var rows []row
	s.mu.Lock()
	for _, c := range s.workers {
		if c.meta.pid == nil {
			continue
		}
		rows = append(rows, row{cmp.Or(derefOr(c.meta.name), c.id), c.id, map[string]any{
			"name": metaString(c.meta.name), "description": metaString(c.meta.description),
			"version": metaString(c.meta.version), "id": c.id, "runtime": metaString(c.meta.runtime),
			"os": metaString(c.meta.os), "status": "connected", "function_count": len(c.functionIDs),
			"connected_at_ms": c.connectedAt.UnixMilli(), "active_invocations": len(c.invocations),
			"isolation": metaString(c.meta.isolation), "ip_address": c.ip,
		}})
	}
	s.mu.Unlock()
	counts := map[string]int{}
	for _, b := range builtinTable() {
		counts[b.worker]++
	}
	for _, w := range []struct{ name, description string }{
		{engineFnWorkerName, engineFnWorkerDescription}, {stateWorkerName, stateWorkerDescription},
	} {
		rows = append(rows, row{w.name, w.name, map[string]any{
			"name": w.name, "description": w.description, "version": engineVersion, "id": w.name,
			"runtime": "engine", "os": nil, "status": "available", "function_count": counts[w.name],
			"connected_at_ms": s.startedAt.UnixMilli(), "active_invocations": 0,
			"isolation": "in-process", "ip_address": nil,
		}})
	}
	slices.SortFunc(rows, func(x, y row) int { return cmp.Or(cmp.Compare(x.sortName, y.sortName), cmp.Compare(x.id, y.id)) })
	out := make([]map[string]any, 0, len(rows))
	runtime, hasRuntime := a.optStr("runtime")
	status, hasStatus := a.optStr("status")
	search, _ := a.optStr("search")
	for _, r := range rows {
		if hasRuntime && r.fields["runtime"] != runtime {
			continue
		}
		if hasStatus && r.fields["status"] != status {
			continue
		}
		name, _ := r.fields["name"].(string)
		if search != "" && !strings.Contains(strings.ToLower(name), strings.ToLower(search)) {
			continue
		}
		out = append(out, r.fields)
	}
	return mustEncode(map[string]any{"workers": out}), nil
}

func derefOr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// functionsList lists functions, hiding engine::* (but not
// engine::queue::*) and metadata.internal ones unless include_internal is
// set. Sorted by id, or by match quality then id when searching.
func functionsList(s *Server, data json.RawMessage) (json.RawMessage, *wire.ErrorBody) {
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
		id     string
		rank   int
		fields map[string]any
	}
	var rows []row
	s.mu.Lock()
	for _, f := range s.functions {
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
		rows = append(rows, row{f.id, searchRank(f.id, needle), s.summaryLocked(f)})
	}
	s.mu.Unlock()
	slices.SortFunc(rows, func(x, y row) int {
		if needle != "" {
			if c := cmp.Compare(x.rank, y.rank); c != 0 {
				return c
			}
		}
		return cmp.Compare(x.id, y.id)
	})
	out := make([]map[string]any, 0, len(rows))
	for _, r := range rows {
		out = append(out, r.fields)
	}
	return mustEncode(map[string]any{"functions": out}), nil
}

// summaryLocked is a function's row in engine::functions::list.
func (s *Server) summaryLocked(f *function) map[string]any {
	row := map[string]any{"function_id": f.id, "worker_name": s.workerNameLocked(f)}
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
// request_schema/response_schema.
func functionsInfo(s *Server, data json.RawMessage) (json.RawMessage, *wire.ErrorBody) {
	a, e := functionInfoIn.decode("engine::functions::info", data)
	if e != nil {
		return nil, e
	}
	one, hasOne := a.optStr("function_id")
	many, hasMany := a.strs("function_ids")
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
		detail := s.detailLocked(one)
		s.mu.Unlock()
		if detail == nil {
			return nil, &wire.ErrorBody{Code: "NOT_FOUND", Message: fmt.Sprintf("Function '%s' is not registered.", one)}
		}
		return mustEncode(detail), nil
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
		if d := s.detailLocked(id); d != nil {
			entries = append(entries, d)
		} else {
			entries = append(entries, map[string]any{"function_id": id, "error": "not_found"})
		}
	}
	s.mu.Unlock()
	return mustEncode(map[string]any{"functions": entries}), nil
}

// detailLocked is engine::functions::info's detail of one function, or nil.
func (s *Server) detailLocked(id string) map[string]any {
	f := s.functions[id]
	if f == nil {
		return nil
	}
	d := s.summaryLocked(f)
	if f.requestFormat != nil {
		d["request_schema"] = f.requestFormat
	}
	if f.responseFormat != nil {
		d["response_schema"] = f.responseFormat
	}
	refs := []map[string]any{}
	for _, tid := range slices.Sorted(maps.Keys(s.bindings)) {
		if b := s.bindings[tid]; b.functionID == id {
			refs = append(refs, map[string]any{"id": b.id, "trigger_type": b.triggerType, "config": b.config})
		}
	}
	d["registered_triggers"] = refs
	return d
}
