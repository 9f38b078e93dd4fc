package iii

import (
	"cmp"
	"context"
	"encoding/json"
	"strings"
	"time"

	"go.uber.org/zap"
)

// Replicas of one worker on one engine (docs/decisions.md D72). Several
// processes of one worker register the same function ids and provide
// the same trigger types, and the engine keeps one owner of each: iii
// 0.22.1 the connection that registered it last, 0.23 the first one
// still connected (a later registration is refused). When the owner's
// connection ends the engine removes what it owned and gives it to no
// one, so every call fails with function not found although a replica
// that could serve it is connected. A client that follows its replicas
// (FollowReplicas) is told by the engine when that may have happened,
// asks the engine what is missing, and registers it again:
//
//   - engine::workers-available fires worker_disconnected after the
//     engine removed the connection's functions and trigger types, and
//     worker_metadata_updated when a worker calls
//     engine::workers::register, which Shutdown sends again after its
//     unregisterfunction frames so a replica stopping gracefully hands
//     its functions over at once rather than when its socket closes;
//   - engine::functions-available (polled by the engine every 5 s) is
//     the net under both.
//
// A provided trigger type has one provider too, the replica that
// registered it last, and the engine does not tell the provider it
// replaced. The one a replica replaced would keep firing to the
// subscribers it held, which the new provider now also holds; so every
// replica binds a probe of its own to each type it provides, and a
// provider that is sent another replica's probe (the engine sends the
// new provider every binding of the type) tells that replica, which
// forgets its subscribers (probe.go).

// Engine trigger types that announce a change of workers or functions.
const (
	engineWorkersAvailable   = "engine::workers-available"
	engineFunctionsAvailable = "engine::functions-available"
)

// reassertTimeout bounds the two engine::*::list calls of one look.
const reassertTimeout = 5 * time.Second

// FollowReplicas makes this client take over what another replica of it
// owned when that replica goes: functionID (internal, unique to this
// process, such as skills::replica::1a2b3c4d) receives the engine's
// change events and other replicas' probe notices, and is bound to both
// engine trigger types and, as a probe, to every trigger type provided
// so far. Call it after ProvideTriggerType and before Start; a second
// call does nothing. Its goroutine runs from Start to Close.
func (c *Client) FollowReplicas(functionID string) {
	c.mu.Lock()
	if c.replicaFn != "" {
		c.mu.Unlock()
		return
	}
	c.replicaFn = functionID
	c.replicaWake = make(chan struct{}, 1)
	types := make([]string, 0, len(c.providers))
	for id := range c.providers {
		types = append(types, id)
	}
	started := c.started && !c.closed
	if started {
		c.replicas.Add(1)
	}
	c.mu.Unlock()

	c.RegisterFunction(Function{
		ID:          functionID,
		Description: "Internal: tells this replica when the engine's workers or functions changed, so it registers again what another replica owned, and when another replica became the provider of a trigger type it provides.",
		Metadata:    json.RawMessage(`{"internal":true}`),
		Handler:     c.onReplicaEvent,
	})
	base := strings.ReplaceAll(functionID, "::", "-")
	c.RegisterTrigger(Trigger{ID: base + "-workers", Type: engineWorkersAvailable, FunctionID: functionID})
	c.RegisterTrigger(Trigger{ID: base + "-functions", Type: engineFunctionsAvailable, FunctionID: functionID})
	for _, t := range types {
		c.RegisterTrigger(Trigger{ID: base + "-probe-" + strings.ReplaceAll(t, "::", "-"), Type: t,
			FunctionID: functionID, Config: map[string]bool{probeConfigKey: true}})
	}
	if started {
		go c.keepRegistrations()
	}
}

// OnTakeOver sets what runs before this client registers again
// functions the engine lacks (another replica owned them): a cache of
// engine state that may lag behind the replica that served until now
// stops answering from memory, so the first call routed here agrees
// with every write that replica acknowledged (docs/decisions.md D72).
// f must not block for long or call the client synchronously.
func (c *Client) OnTakeOver(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.onTakeOver = f
}

// OnEngineChange adds f to what runs each time the engine reports a
// change of its workers or functions (the events FollowReplicas binds;
// without it, never): the catalog looks again whether the engine offers
// pubsub, which iii 0.24 runs as a worker of its own that may come and go
// (docs/decisions.md D75). f must not block or call the client
// synchronously.
func (c *Client) OnEngineChange(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.onEngine = append(c.onEngine, f)
}

// replicaEvent is what arrives at the FollowReplicas function: an
// engine::workers-available or engine::functions-available payload, or
// another replica's probe notice.
type replicaEvent struct {
	Event       string `json:"event"`
	WorkerID    string `json:"worker_id"`
	TriggerType string `json:"replica_provider_of"`
}

// onReplicaEvent wakes keepRegistrations for an event that can mean a
// function or type of this worker is gone, and forgets the subscribers
// of a type another replica now provides. It never blocks delivery.
func (c *Client) onReplicaEvent(_ context.Context, req Request) (any, error) {
	var ev replicaEvent
	_ = json.Unmarshal(req.Data, &ev) // an event it cannot read wakes a look anyway
	if ev.TriggerType != "" {
		c.replacedAsProvider(ev.TriggerType)
		return nil, nil
	}
	c.mu.Lock()
	watchers := c.onEngine
	c.mu.Unlock()
	for _, f := range watchers {
		f()
	}
	// A worker that connected has removed nothing yet, and this
	// connection's own events are about what it did itself.
	if ev.Event == "worker_connected" || (ev.WorkerID != "" && ev.WorkerID == c.WorkerID()) {
		return nil, nil
	}
	select {
	case c.replicaWake <- struct{}{}:
	default:
	}
	return nil, nil
}

// keepRegistrations looks, each time it is woken, at what the engine
// has of this worker's functions and trigger types, until Close.
func (c *Client) keepRegistrations() {
	defer c.replicas.Done()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-c.replicaWake:
		}
		start := time.Now()
		fns, types := c.reassert(c.ctx)
		if fns+types > 0 {
			c.log.Info("registered again what another replica owned", zap.Int("functions", fns),
				zap.Int("trigger_types", types), zap.Duration("took", time.Since(start)))
		}
	}
}

// reassert registers again every function and provided trigger type of
// this client that the engine lacks, and returns how many it sent. An
// engine that cannot list them (no engine::functions::list or
// engine::triggers::list) is sent all of them: a registration of what a
// live replica owns is harmless (0.22.1 moves the ownership, 0.23
// refuses it and the replica keeps it).
func (c *Client) reassert(ctx context.Context) (fns, types int) {
	if !c.serving() {
		return 0, 0
	}
	ctx, cancel := context.WithTimeout(ctx, reassertTimeout)
	defer cancel()
	haveFns, errFns := c.listed(ctx, "engine::functions::list", "functions", "function_id")
	haveTypes, errTypes := c.listed(ctx, "engine::triggers::list", "triggers", "id")
	if !cannotList(errFns) || !cannotList(errTypes) {
		// A list that failed (it timed out on a busy engine, the
		// connection dropped) says nothing of what is missing, and
		// registering everything again then would stop nothing useful
		// and cost calls in flight: the next event, or the engine's
		// functions-available poll, looks again.
		return 0, 0
	}
	c.mu.Lock()
	missing := errFns != nil
	for id := range c.functions {
		missing = missing || !haveFns[id]
	}
	catchUp := c.onTakeOver
	c.mu.Unlock()
	if missing && catchUp != nil {
		catchUp() // before the engine routes a call here
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == nil || c.shuttingDown {
		return 0, 0
	}
	for id, e := range c.functions {
		if errFns != nil || !haveFns[id] {
			c.conn.send(e.frame)
			fns++
		}
	}
	for id, p := range c.providers {
		if errTypes != nil || !haveTypes[id] {
			// The engine sends every binding of the type again.
			p.reset()
			c.conn.send(p.frame)
			types++
		}
	}
	return fns, types
}

// cannotList reports whether err is nil or the engine's answer that it
// has no such list function (an engine before engine::*::list): the two
// cases in which reassert may act on what it listed, or on nothing.
func cannotList(err error) bool { return err == nil || CannotList(err) }

// serving reports whether a connection is up and not shutting down.
func (c *Client) serving() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ready && c.conn != nil && !c.shuttingDown
}

// listedRow is what listed reads of an engine::*::list row.
type listedRow struct {
	ID         string `json:"id"`
	FunctionID string `json:"function_id"`
	Namespace  string `json:"namespace"`
}

// listed calls an engine::*::list function (internal rows included) and
// returns the ids (field idField of each row of the array field: "id" or
// "function_id") that are in this client's namespace.
func (c *Client) listed(ctx context.Context, fn, field, idField string) (map[string]bool, error) {
	raw, err := c.Call(ctx, fn, map[string]bool{"include_internal": true})
	if err != nil {
		return nil, err
	}
	// Only each row's id and namespace are read: the rows' other fields
	// (descriptions, schemas) are skipped, not decoded into maps, which
	// cost the availability follower most of its CPU per list at 1,000
	// functions (docs/decisions.md D85).
	var out map[string][]listedRow
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	have := make(map[string]bool, len(out[field]))
	mine := c.Namespace()
	for _, row := range out[field] {
		id := row.ID
		if idField == "function_id" {
			id = row.FunctionID
		}
		if cmp.Or(row.Namespace, DefaultNamespace) == mine {
			have[id] = true
		}
	}
	return have, nil
}
