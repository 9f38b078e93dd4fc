package catalog

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// Engine is what the catalog needs of the engine client: calls, the
// connection it is on and word of its end, and registrations replayed on
// every connection until they are unregistered.
// *iii.Client satisfies it.
type Engine interface {
	Call(ctx context.Context, functionID string, data any) (json.RawMessage, error)
	WaitConnection(ctx context.Context, previous string) (string, error)
	Connection() string
	OnDisconnect(f func())
	RegisterFunction(f iii.Function)
	RegisterTrigger(t iii.Trigger)
	UnregisterFunction(id string)
	UnregisterTrigger(id string)
}

// StateTriggerType is the engine's trigger type for state changes.
const StateTriggerType = "state"

// retryDelay spaces attempts to load a scope whose state::list failed.
const retryDelay = 500 * time.Millisecond

// Catalog keeps a set of scopes current. Create it with New, then Start it
// once the client has its other registrations; Close stops it.
type Catalog struct {
	engine     Engine
	log        *zap.Logger
	timeout    time.Duration
	scopes     []*Scope
	suffix     string // random, so replicas on one engine each get their own events
	functionID string // receives this worker's state events

	events      *keyQueue     // keys to read again, from the state trigger
	reload      chan struct{} // capacity 1: a scope asks to be loaded again
	engineEvent chan struct{} // capacity 1: the engine's workers or functions changed (state_watch.go)
	signalWake  chan struct{} // capacity 1: look again whether the engine has pubsub (signal.go)
	rereaders   int           // SetRereaders's; 0 reads as 1

	// pageLimit and pageBytes size the pages of a paged load
	// (load_pages.go); noPages is the connection whose engine has no
	// state::list_entries. noPages belongs to followConnections.
	pageLimit, pageBytes int
	noPages              string

	// The reconcile (reconcile.go): its interval, the function told of
	// each change found, and a request for a pass now.
	reconcileEvery time.Duration
	onChange       func(context.Context, Change)
	reconcileNow   chan struct{} // capacity 1

	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu          sync.Mutex
	dropped     map[string]int // scope -> loads in a row cut short by a lost connection
	mode        string         // "", "live" or "read-through"
	modeChanged chan struct{}  // closed and replaced when mode is set
	settled     chan struct{}  // closed once the first connection's scopes are served (Settled)
	settleOnce  sync.Once
	reported    bool                  // the read-through fallback was logged
	undecodable map[string][32]byte   // scope NUL key -> sha256 of the bad value last logged
	foundWhere  map[stateEvent]string // keys queued by a reconcile pass or a signal, not yet read again: by which
	fresh       Freshness             // without ReconcileInterval
}

// Modes of the catalog, for diagnostics.
const (
	ModeLive        = "live"         // loaded and kept current by the state trigger
	ModeReadThrough = "read-through" // the engine has no state trigger: every read asks the engine
)

// stateEvent is the part of a state trigger payload the catalog reads.
type stateEvent struct {
	Scope string `json:"scope"`
	Key   string `json:"key"`
}

// New returns a catalog of scopes fed through engine. timeout bounds each
// state call. It registers, on engine, the function that receives the
// state events and one binding per scope; its id carries a random suffix
// so that replicas of the worker on one engine each get their own events.
func New(engine Engine, timeout time.Duration, log *zap.Logger, scopes ...*Scope) *Catalog {
	if log == nil {
		log = zap.NewNop()
	}
	suffix := iii.UniqueSuffix()
	c := &Catalog{
		engine:       engine,
		log:          log,
		timeout:      timeout,
		scopes:       scopes,
		suffix:       suffix,
		functionID:   "skills::catalog::state-" + suffix,
		events:       newKeyQueue(),
		reload:       make(chan struct{}, 1),
		engineEvent:  make(chan struct{}, 1),
		signalWake:   make(chan struct{}, 1),
		reconcileNow: make(chan struct{}, 1),
		foundWhere:   map[stateEvent]string{},
		fresh:        Freshness{Signal: SignalNone},
		pageLimit:    pageLimit,
		pageBytes:    pageBytes,
		dropped:      map[string]int{},
		undecodable:  map[string][32]byte{},

		modeChanged: make(chan struct{}),
		settled:     make(chan struct{}),
	}
	c.holdState()
	// A scope loaded on a connection vouches for nothing once it ends,
	// before any call on the next connection is served (D18).
	engine.OnDisconnect(func() {
		for _, s := range scopes {
			s.Orphan()
		}
	})
	for _, s := range scopes {
		s.onInvalid = c.requestReload
		s.onWrite = func(key string) { c.events.push(stateEvent{Scope: s.Name(), Key: key}) }
		s.onOwnChange = func(key string, sum *valueSum) { c.signal(s.Name(), key, sum) }
		s.readNow = func(ctx context.Context, key string) (bool, error) { return c.readNow(ctx, s, key) }
		s.onLoadChanges = func(ctx context.Context, changes []KeyChange) {
			for _, ch := range changes {
				c.changed(ctx, Change{Scope: s.Name(), Key: ch.Key, Removed: ch.Removed, Found: FoundLoad})
			}
		}
	}
	engine.RegisterFunction(iii.Function{
		ID:          c.functionID,
		Description: "Internal: receives state events for this skills worker's catalog.",
		Metadata:    json.RawMessage(`{"internal":true}`),
		Handler:     c.onStateEvent,
	})
	for _, s := range scopes {
		engine.RegisterTrigger(iii.Trigger{
			ID:         "skills-catalog-" + suffix + "-" + s.Name(),
			Type:       StateTriggerType,
			FunctionID: c.functionID,
			Config:     map[string]string{"scope": s.Name()},
		})
	}
	return c
}

// FunctionID is the internal function that receives state events.
func (c *Catalog) FunctionID() string { return c.functionID }

// Mode reports how the catalog serves: "" before the first connection,
// ModeLive or ModeReadThrough. A connection that starts read-through
// because the engine lacks the state trigger type turns live as soon as
// the type appears (state_watch.go).
func (c *Catalog) Mode() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mode
}

// Start runs the catalog until Close: on every connection it checks that
// the engine has the state trigger type (waiting for it when it is
// missing) and loads every scope.
func (c *Catalog) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	connections := make(chan string)
	readers := max(c.rereaders, 1)
	c.wg.Add(2 + readers)
	go c.watchConnections(ctx, connections)
	go c.followConnections(ctx, connections)
	for range readers {
		go c.applyEvents(ctx)
	}
	c.startSignal(ctx)
}

// Close stops the catalog's goroutines and waits for them.
func (c *Catalog) Close() {
	if c.cancel != nil {
		c.cancel()
	}
	c.wg.Wait()
}

// onStateEvent queues the key of a state event to be read again, unless
// the event is the echo of one of the worker's own writes (recognised by
// its new value's hash, own_writes.go, docs/decisions.md D51), which costs
// nothing more. The payload is read with the codec's scanner: the values
// it carries are hashed, never decoded. It never blocks the engine's
// delivery; repeated events for one key waiting in the queue are read
// once.
func (c *Catalog) onStateEvent(_ context.Context, req iii.Request) (any, error) {
	ev, value, err := readStateEvent(req.Data)
	if err != nil {
		c.log.Warn("state event that does not decode ignored", zap.String("reason", ids.Clip(err.Error())))
		return nil, nil
	}
	if value == nil {
		value = json.RawMessage("null") // a delete's: own_writes.go, deletedSum
	}
	for _, s := range c.scopes {
		if s.Name() == ev.Scope && s.ownEvent(ev.Key, sumOf(value)) {
			return nil, nil
		}
	}
	c.events.push(ev)
	return nil, nil
}

// readStateEvent reads the scope, the key and the raw new value of a
// state trigger payload. Absent or null fields read as empty, as
// encoding/json would read them into stateEvent.
func readStateEvent(data []byte) (ev stateEvent, newValue json.RawMessage, err error) {
	m, err := wire.Members(data, "scope", "key", "new_value")
	if err != nil {
		return stateEvent{}, nil, err
	}
	fields := []struct {
		name string
		dst  *string
	}{{"scope", &ev.Scope}, {"key", &ev.Key}}
	for i, f := range fields {
		if v := m[i]; v != nil && string(v) != "null" {
			if *f.dst, err = wire.String(v); err != nil {
				return stateEvent{}, nil, fmt.Errorf("field %q: %w", f.name, err)
			}
		}
	}
	return ev, m[2], nil
}

// applyEvents reads again the key of every state event; SetRereaders's
// number of them run at once, never two on one key (queue.go). A key that
// cannot be read (the engine busy or going away) invalidates its scope, so
// reads go to the engine until the reload that follows: the catalog never
// vouches for a value it could not check.
func (c *Catalog) applyEvents(ctx context.Context) {
	defer c.wg.Done()
	for {
		ev, ok := c.events.pop(ctx)
		if !ok {
			return
		}
		c.applyEvent(ctx, ev)
		c.events.done(ev)
	}
}

// applyEvent reads again the key of one event, or of one key a reconcile
// pass found changed (reconcile.go): a change it applies is a Change
// found where the key was queued from.
func (c *Catalog) applyEvent(ctx context.Context, ev stateEvent) {
	found := c.takeFound(ev)
	for _, s := range c.scopes {
		if s.Name() != ev.Scope || s.Defer(ev.Key) || !s.Valid() {
			continue // the load reads the key, and says what it changed (loadChanges)
		}
		if _, err := c.reread(ctx, s, ev.Key, found); err != nil && ctx.Err() == nil {
			c.log.Warn("catalog: could not read a changed key; the scope is reloaded",
				zap.String("scope", s.Name()), zap.String("key", ids.Clip(ev.Key)), zap.Error(err))
			s.Invalidate()
		}
	}
}

// reread applies the engine's current value of key to s, unless the
// entry changed while the value was being fetched (that change queued a
// re-read of its own, whose answer is newer). A value that does not
// decode is logged, once per event, and leaves the entry as it was. A
// value that changes the entry is a Change found where found says.
// settled reports that the mirror now holds what the read found, or
// keeps the last value that decoded in place of a newer one that does
// not (D18), or no longer vouches for the scope: what a read after a
// version waits for (read_after.go).
func (c *Catalog) reread(ctx context.Context, s *Scope, key, found string) (settled bool, err error) {
	gen := s.Gen(key)
	res, err := c.call(ctx, "state::get", map[string]string{"scope": s.Name(), "key": key})
	if err != nil {
		return false, err
	}
	if res = bytes.TrimSpace(res); len(res) == 0 {
		res = nil
	}
	changed, applied, err := s.applyRead(key, res, gen)
	if changed {
		c.changed(ctx, Change{Scope: s.Name(), Key: key, Removed: res == nil, Found: found})
		if found == FoundEvent {
			// Learnt first hand: other engines' replicas hear of it
			// (signal.go, docs/decisions.md D75).
			var sum *valueSum
			if res != nil {
				v := sumOf(res)
				sum = &v
			}
			c.signal(s.Name(), key, sum)
		}
	}
	if c.noteUndecodable(s.Name(), key, res, err) {
		c.log.Warn("catalog: a changed value does not decode; the entry is kept as it was",
			zap.String("scope", s.Name()), zap.String("key", ids.Unquoted(key)), zap.String("reason", ids.Unquoted(err.Error())))
	}
	return applied || err != nil, nil
}

// noteUndecodable records whether the value just read at scope/key failed
// to decode (decodeErr), and reports whether that is news: the same bad
// value read again (an event and the re-read of an earlier one can both
// find it) is logged once.
func (c *Catalog) noteUndecodable(scope, key string, value json.RawMessage, decodeErr error) bool {
	id := scope + "\x00" + key
	c.mu.Lock()
	defer c.mu.Unlock()
	if decodeErr == nil {
		delete(c.undecodable, id)
		return false
	}
	sum := sha256.Sum256(value)
	if c.undecodable[id] == sum {
		return false
	}
	c.undecodable[id] = sum
	return true
}

// stateType is what the engine says of the state trigger type.
type stateType int

const (
	stateTypeUnanswered stateType = iota // the question failed (the engine busy or gone)
	stateTypePresent
	stateTypeAbsent     // not registered (yet: a state worker may register later)
	stateTypeUnknowable // the engine has no engine::triggers::list
)

// stateTriggerAvailable asks the engine whether it has the state trigger
// type: a binding of a type the engine lacks is parked without a word, and
// the catalog would never hear of a change. A failed question is asked
// again while the connection lasts; an answer other than present is
// logged once.
func (c *Catalog) stateTriggerAvailable(ctx context.Context, connection string) stateType {
	for {
		answer, err := c.askStateType(ctx)
		if answer != stateTypeUnanswered {
			if answer != stateTypePresent {
				c.reportReadThrough(err)
			}
			return answer
		}
		select {
		case <-ctx.Done():
			return stateTypeUnanswered
		case <-time.After(retryDelay):
		}
		if !c.sameConnection(ctx, connection) {
			return stateTypeUnanswered
		}
	}
}

// askStateType asks engine::triggers::list once; err says why the type
// cannot be followed, or why the question failed.
func (c *Catalog) askStateType(ctx context.Context) (stateType, error) {
	res, err := c.call(ctx, "engine::triggers::list", map[string]any{"prefix": StateTriggerType})
	if err != nil {
		var ie *iii.Error
		if errors.As(err, &ie) && ie.Code == iii.CodeFunctionNotFound {
			c.routeState(true)              // an engine without namespaces: calls go as they are
			return stateTypeUnknowable, err // an engine without engine::triggers::list
		}
		return stateTypeUnanswered, err
	}
	var list struct {
		Triggers []struct {
			ID        string `json:"id"`
			Namespace string `json:"namespace"`
		} `json:"triggers"`
	}
	if json.Unmarshal(res, &list) == nil {
		home, atDefault := false, false
		own := c.ownNamespace()
		for _, t := range list.Triggers {
			if t.ID != StateTriggerType {
				continue
			}
			switch t.Namespace {
			case own:
				home = true
			case "", iii.DefaultNamespace:
				atDefault = true
			}
		}
		if home || atDefault {
			c.routeState(home)
			return stateTypePresent, nil
		}
	}
	// No state worker yet: calls go to the worker's namespace, and fail
	// there saying where state::* is registered, until one appears.
	c.routeState(true)
	return stateTypeAbsent, errors.New("the engine has no state trigger type (is its state worker loaded?)")
}

// namespaceRouter is what a client in a namespace offers (*iii.Client):
// its namespace, and the routing of the calls that name none.
type namespaceRouter interface {
	Namespace() string
	RouteNamespace(prefix, ns string)
	HoldNamespace(prefix string)
}

// stateCalls is the prefix of the state worker's functions.
const stateCalls = "state::"

// ownNamespace is the namespace the worker registers in; the default one
// for a client that has no namespaces.
func (c *Catalog) ownNamespace() string {
	if r, ok := c.engine.(namespaceRouter); ok {
		return r.Namespace()
	}
	return iii.DefaultNamespace
}

// routeState sends the worker's state::* calls where the engine's state
// worker is: its own namespace when the state trigger type is there
// (home), else the default namespace, the order in which the engine looks
// for the provider of the catalog's state binding (engine 0.23;
// docs/deployment.md#namespaces). A worker in the default namespace sends
// its calls unchanged.
func (c *Catalog) routeState(home bool) {
	r, ok := c.engine.(namespaceRouter)
	if !ok {
		return
	}
	to := iii.DefaultNamespace
	if home {
		to = ""
	}
	r.RouteNamespace(stateCalls, to)
}

// holdState makes the worker's state::* calls wait until routeState has
// found where the state worker is (a worker in the default namespace
// never waits): until then a write could go to a namespace without one.
func (c *Catalog) holdState() {
	if r, ok := c.engine.(namespaceRouter); ok {
		r.HoldNamespace(stateCalls)
	}
}

// reportReadThrough says once in the log why state reads go to the engine.
func (c *Catalog) reportReadThrough(err error) {
	c.mu.Lock()
	first := !c.reported
	c.reported = true
	c.mu.Unlock()
	if first {
		c.log.Warn("catalog: cannot follow state changes; every state read goes to the engine", zap.Error(err))
	}
}

func (c *Catalog) setMode(mode string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mode = mode
	close(c.modeChanged)
	c.modeChanged = make(chan struct{})
}

// Settled returns a channel closed once the catalog first serves every
// scope as it will: loaded (live, whether each load succeeded or gave
// up), or read-through. What reads every entry once at boot (the content
// checks' boot log) waits for it, so as not to read the whole scope
// through the engine beside the load.
func (c *Catalog) Settled() <-chan struct{} { return c.settled }

// settle closes Settled's channel, the first time.
func (c *Catalog) settle() { c.settleOnce.Do(func() { close(c.settled) }) }

// ModeChanged returns a channel closed the next time the catalog decides
// its mode: on every connection, and when the state trigger type appears
// on a connection that lacked it.
func (c *Catalog) ModeChanged() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.modeChanged
}

func (c *Catalog) call(ctx context.Context, fn string, data any) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	return c.engine.Call(ctx, fn, data)
}
