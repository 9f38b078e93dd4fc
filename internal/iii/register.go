package iii

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"runtime"
	"slices"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// Trigger binds one of this worker's (or anyone's) functions to a trigger
// type. Config nil is sent as {}; Metadata is delivered to the function as
// invocation metadata on every fire.
type Trigger struct {
	ID         string // chosen by the caller, stable across reconnects
	Type       string
	FunctionID string
	Config     any
	Metadata   any
	// Namespace is where FunctionID is found when the binding fires
	// (engine 0.23): "" is this worker's namespace (namespace.go).
	Namespace string
}

type functionEntry struct {
	fn    Function
	frame []byte
}

type triggerEntry struct {
	t     Trigger
	frame []byte
}

// RegisterFunction adds or replaces (same ID) a function. It is sent at
// once when connected and replayed on every connection. It panics on an
// empty ID, a nil Handler or schemas that are not valid JSON: those are
// programming errors, caught at start-up like http.ServeMux.Handle does.
func (c *Client) RegisterFunction(f Function) {
	if f.ID == "" || f.Handler == nil {
		panic(fmt.Sprintf("iii: RegisterFunction %q: id and handler are required", f.ID))
	}
	frame := mustEncode(wire.RegisterFunction{ID: f.ID, Description: f.Description,
		RequestFormat: f.RequestFormat, ResponseFormat: f.ResponseFormat, Metadata: f.Metadata})
	c.mu.Lock()
	defer c.mu.Unlock()
	c.functions[f.ID] = functionEntry{fn: f, frame: frame}
	if c.conn != nil && !c.shuttingDown {
		c.conn.send(frame)
	}
}

// UnregisterFunction removes a function and tells the engine when
// connected. Unknown ids are ignored.
func (c *Client) UnregisterFunction(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.functions[id]; !ok {
		return
	}
	delete(c.functions, id)
	c.sendLocked(wire.UnregisterFunction{ID: id})
}

// RegisterTrigger adds or replaces (same ID) a binding. It is sent at once
// when connected and replayed on every connection. The engine answers only
// failures, which are logged at warn. It panics on an empty ID, Type or
// FunctionID, a blank Namespace, or a Config or Metadata that cannot be
// JSON-encoded.
func (c *Client) RegisterTrigger(t Trigger) {
	if t.ID == "" || t.Type == "" || t.FunctionID == "" {
		panic(fmt.Sprintf("iii: RegisterTrigger %q: id, type and function id are required", t.ID))
	}
	if err := checkNamespace(t.Namespace, "Trigger.Namespace"); err != nil {
		panic(fmt.Sprintf("iii: RegisterTrigger %q: %v", t.ID, err))
	}
	config, err := encodeJSON(t.Config)
	if err != nil {
		panic(fmt.Sprintf("iii: RegisterTrigger %q: config: %v", t.ID, err))
	}
	if config == nil {
		config = json.RawMessage("{}")
	}
	meta, err := encodeJSON(t.Metadata)
	if err != nil {
		panic(fmt.Sprintf("iii: RegisterTrigger %q: metadata: %v", t.ID, err))
	}
	frame := mustEncode(wire.RegisterTrigger{ID: t.ID, TriggerType: t.Type, FunctionID: t.FunctionID,
		Config: config, Metadata: meta, Namespace: c.bindingNamespace(t.Namespace)})
	c.mu.Lock()
	defer c.mu.Unlock()
	c.triggers[t.ID] = triggerEntry{t: t, frame: frame}
	if c.conn != nil {
		c.conn.send(frame)
	}
}

// UnregisterTrigger removes a binding this client registered and tells the
// engine when connected. Ids this client did not register are ignored:
// trigger ids are global on the engine, so sending them could remove
// another worker's binding.
func (c *Client) UnregisterTrigger(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.triggers[id]
	if !ok {
		return
	}
	delete(c.triggers, id)
	c.sendLocked(wire.UnregisterTrigger{ID: id, TriggerType: e.t.Type})
}

// handshakeLocked returns the frames every connection starts with
// (docs/decisions.md D12): reattach when a previous connection was greeted, the
// worker metadata call first so a 0.23 engine does not hold the
// registrations, then trigger types, functions and triggers, each sorted
// by id. During Shutdown functions are not re-registered.
func (c *Client) handshakeLocked() [][]byte {
	var frames [][]byte
	if c.prevID != "" && c.prevToken != "" {
		frames = append(frames, mustEncode(wire.Reattach{PreviousWorkerID: c.prevID, ReattachToken: c.prevToken}))
	}
	frames = append(frames, c.metadata)
	for _, id := range slices.Sorted(maps.Keys(c.providers)) {
		frames = append(frames, c.providers[id].frame)
	}
	if !c.shuttingDown {
		for _, id := range slices.Sorted(maps.Keys(c.functions)) {
			frames = append(frames, c.functions[id].frame)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(c.triggers)) {
		frames = append(frames, c.triggers[id].frame)
	}
	return frames
}

// workerInfo is the payload of engine::workers::register. The engine hides
// WebSocket workers that never reported a pid from engine::workers::list.
// Namespace places the connection's registrations (engine 0.23); it is
// omitted for the default namespace, as 0.22 sent it.
type workerInfo struct {
	Name        string `json:"name"`
	Runtime     string `json:"runtime"`
	Version     string `json:"version"`
	OS          string `json:"os"`
	PID         int    `json:"pid"`
	Description string `json:"description,omitempty"`
	Namespace   string `json:"namespace,omitempty"`
}

// RegisterWorkerFunction is the engine function that receives a worker's
// metadata; it is called (void) first on every connection.
const RegisterWorkerFunction = "engine::workers::register"

// metadataFrame is the engine::workers::register call, made once in New.
func (c *Client) metadataFrame() []byte {
	o := c.opts
	info := workerInfo{Name: o.Name, Runtime: "go", Version: o.Version,
		OS: runtime.GOOS + " " + runtime.GOARCH, PID: os.Getpid(), Description: o.Description,
		Namespace: c.namespace}
	inv := Invocation{FunctionID: RegisterWorkerFunction, Data: info,
		Namespace: c.callNamespace("", RegisterWorkerFunction)}
	b, err := invokeFrame(inv, "", &wire.Action{Type: wire.ActionVoid})
	if err != nil {
		panic(fmt.Sprintf("iii: worker metadata: %v", err)) // plain strings and ints always encode
	}
	return b
}

// mustEncode encodes a frame built by this package from checked inputs; it
// panics on raw JSON fields that are not valid JSON.
func mustEncode(m wire.Message) []byte {
	b, err := wire.Encode(m)
	if err != nil {
		panic(fmt.Sprintf("iii: %v", err))
	}
	return b
}
