package engine

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// Worker metadata and listing from the in-process iii-engine-functions
// worker: engine::workers::register and engine::workers::list.

const (
	// engineVersion is what in-process workers report as their version.
	engineVersion = "0.22.1"
	// workerTextMaxLen caps a worker's reported name and description.
	workerTextMaxLen = 280
)

var (
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
	// registerNamespacedWorkerIn is RegisterWorkerInput with engine 0.23's
	// namespace (Options.Namespaces).
	registerNamespacedWorkerIn = &inputStruct{name: "RegisterWorkerInput",
		fields: append(slices.Clone(registerWorkerIn.fields), optString("namespace"))}
)

// registerWorker stores the calling connection's metadata (the caller is
// known from the injected _caller_worker_id) and answers {"success":true}.
func registerWorker(s *Engine, _ string, data json.RawMessage) (json.RawMessage, *wire.ErrorBody) {
	if s.namespaces {
		return registerNamespacedWorker(s, data)
	}
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

// registerNamespacedWorker is engine::workers::register under engine
// 0.23's namespace rules. The call fixes the caller's namespace (absent
// means the default one; blank is refused), unless the grace period or an
// earlier call already fixed it, which then wins. The worker's name is
// leased in that namespace: a name another live connection holds there
// gets the caller registrationrejected and a close frame, and
// {"success":false}, which it does not receive. Otherwise the metadata is
// stored and the held registrations are applied, here, on the caller's
// read loop, before its next frame.
func registerNamespacedWorker(s *Engine, data json.RawMessage) (json.RawMessage, *wire.ErrorBody) {
	a, e := registerNamespacedWorkerIn.decode("engine::workers::register", data)
	if e != nil {
		return nil, e
	}
	declared, given := a.optStr("namespace")
	if given && strings.TrimSpace(declared) == "" {
		name, ok := a.optStr("name")
		if !ok {
			name = "<unnamed>"
		}
		return nil, &wire.ErrorBody{Code: invalidNamespaceCode, Message: fmt.Sprintf(
			"namespace is empty: worker '%s' declared %s. Give it a name, or omit the field to register in '%s'.",
			name, ids.DebugString(declared), DefaultNamespace)}
	}
	if !given {
		declared = DefaultNamespace
	}
	id, ok := normalizeUUID(a.str("_caller_worker_id"))
	if !ok {
		s.log.Error("engine::workers::register: invalid worker id", zap.String("worker_id", a.str("_caller_worker_id")))
		return mustEncode(map[string]any{"success": true}), nil
	}
	s.mu.Lock()
	c := s.workers[id]
	won := false
	if c != nil {
		ns := declared
		if c.nsState == nsResolved || c.nsState == nsDraining {
			ns = c.ns()
			if ns != declared {
				c.log.Warn("late engine::workers::register: the connection's namespace is already fixed; keeping it",
					zap.String("declared", declared), zap.String("fixed", ns))
			}
		}
		if name := sanitizeWorkerText(a.optStr("name")); name != nil {
			if owner := s.claimWorkerNameLocked(c, ns, *name); owner != nil {
				s.rejectWorkerLocked(c, ns, *name, owner)
				s.mu.Unlock()
				return mustEncode(map[string]any{"success": false}), nil
			}
		}
		won = s.fixNamespaceLocked(c, ns)
	}
	s.mu.Unlock()
	s.storeWorkerMeta(id, a)
	if won {
		s.drainHeld(c)
	}
	s.fire(triggerWorkersAvailable, map[string]any{"event": "worker_metadata_updated", "worker_id": id})
	return mustEncode(map[string]any{"success": true}), nil
}

func (s *Engine) storeWorkerMeta(id string, a args) {
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
// in-process workers (a state worker per namespace that has one), sorted
// by name, id, then namespace.
func workersList(s *Engine, _ string, data json.RawMessage) (json.RawMessage, *wire.ErrorBody) {
	a, e := workersListIn.decode("engine::workers::list", data)
	if e != nil {
		return nil, e
	}
	type row struct {
		sortName, id, ns string
		fields           map[string]any
	}
	var rows []row
	s.mu.Lock()
	for _, c := range s.workers {
		if c.meta.pid == nil {
			continue
		}
		r := row{cmp.Or(derefOr(c.meta.name), c.id), c.id, c.ns(), map[string]any{
			"name": metaString(c.meta.name), "description": metaString(c.meta.description),
			"version": metaString(c.meta.version), "id": c.id, "runtime": metaString(c.meta.runtime),
			"os": metaString(c.meta.os), "status": "connected", "function_count": len(c.functionIDs),
			"connected_at_ms": c.connectedAt.UnixMilli(), "active_invocations": len(c.invocations),
			"isolation": metaString(c.meta.isolation), "ip_address": c.ip,
		}}
		if s.namespaces {
			r.fields["namespace"] = c.ns()
		}
		rows = append(rows, r)
	}
	stateNamespaces := s.stateNamespacesLocked()
	s.mu.Unlock()
	counts := map[string]int{}
	for _, b := range builtinTable() {
		counts[b.worker]++
	}
	inProcess := []struct{ name, description, ns string }{
		{engineFnWorkerName, engineFnWorkerDescription, DefaultNamespace},
		{stateWorkerName, stateWorkerDescription, DefaultNamespace},
	}
	for _, ns := range stateNamespaces { // StartStateIn
		inProcess = append(inProcess, struct{ name, description, ns string }{stateWorkerName, stateWorkerDescription, ns})
	}
	for _, w := range inProcess {
		r := row{w.name, w.name, w.ns, map[string]any{
			"name": w.name, "description": w.description, "version": engineVersion, "id": w.name,
			"runtime": "engine", "os": nil, "status": "available", "function_count": counts[w.name],
			"connected_at_ms": s.startedAt.UnixMilli(), "active_invocations": 0,
			"isolation": "in-process", "ip_address": nil,
		}}
		if s.namespaces {
			r.fields["namespace"] = w.ns
		}
		rows = append(rows, r)
	}
	slices.SortFunc(rows, func(x, y row) int {
		return cmp.Or(cmp.Compare(x.sortName, y.sortName), cmp.Compare(x.id, y.id), cmp.Compare(x.ns, y.ns))
	})
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
