package catalog

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/iii"
)

// The cross-engine signal (docs/decisions.md D75). A state event fires
// only on the engine that made the write (D73), so a replica on another
// engine sharing the store learns of it by its reconcile, seconds later.
// Where the engine offers iii's pubsub (the publish function and the
// subscribe trigger type; with the Redis adapter every engine on that
// Redis hears every publish), each replica binds subscribe on SignalTopic
// and publishes {scope, key, fingerprint} for each change it learns of
// first hand: its own writes when they answer, and the changes its state
// events bring once it has applied them. A receiver ignores a scope it
// does not mirror and a message whose fingerprint is its entry's own (its
// own echo, or a change its events already brought), and otherwise queues
// the key exactly as a reconcile difference is queued: read again with
// state::get and applied only if the entry did not change meanwhile. The
// message is never trusted beyond "look at this key". Without pubsub
// nothing changes: the reconcile alone finds other engines' writes.

// SignalTopic is the pubsub topic of the signal. It carries no namespace:
// a message names its scope, and workers that share a scope in one store
// share its rows, so they share its signal too.
const SignalTopic = "skills::changes"

// The pubsub worker's function and trigger type, as iii names them.
const (
	publishFunction      = "publish"
	subscribeTriggerType = "subscribe"
)

// Signal kinds, for Freshness.Signal.
const (
	SignalPubSub = "pubsub" // the engine has pubsub: changes are signalled
	SignalNone   = "none"   // it has not (or not yet): the reconcile alone
)

// FoundSignal is a change found by a signal another replica published.
const FoundSignal = "signal"

// maxSignalKey bounds the key a message may name: a key that long is no
// row of this worker, and reading it would only cost a state::get.
const maxSignalKey = 4096

// signalCheckTimeout bounds the two listings that tell whether the engine
// has pubsub.
const signalCheckTimeout = 5 * time.Second

// voidInvoker is what a client offers for fire-and-forget calls
// (*iii.Client): a publish is never waited for.
type voidInvoker interface {
	InvokeVoid(inv iii.Invocation) error
}

// engineWatcher is what a client that follows its replicas offers
// (*iii.Client): word of each change of the engine's workers or
// functions, after which the catalog looks again for pubsub.
type engineWatcher interface {
	OnEngineChange(f func())
}

// signalMessage is what a replica publishes on SignalTopic.
type signalMessage struct {
	Scope       string  `json:"scope"`
	Key         string  `json:"key"`
	Fingerprint *string `json:"fingerprint"` // hex SHA-256 of the stored value; null: deleted
}

// publishData is publish's input.
type publishData struct {
	Topic string        `json:"topic"`
	Data  signalMessage `json:"data"`
}

func (c *Catalog) signalFunctionID() string { return "skills::catalog::signal-" + c.suffix }
func (c *Catalog) signalTriggerID() string  { return "skills-catalog-" + c.suffix + "-signal" }

// startSignal starts following whether the engine has pubsub, on every
// connection and whenever the engine's workers or functions change; a
// client that cannot publish without waiting never signals.
func (c *Catalog) startSignal(ctx context.Context) {
	if _, ok := c.engine.(voidInvoker); !ok {
		return
	}
	if w, ok := c.engine.(engineWatcher); ok {
		w.OnEngineChange(func() {
			select {
			case c.signalWake <- struct{}{}:
			default:
			}
		})
	}
	connections := make(chan string)
	c.wg.Add(2)
	go func() {
		defer c.wg.Done()
		iii.FeedConnections(ctx, c.engine, connections)
	}()
	go c.followSignal(ctx, connections)
}

// followSignal looks whether the engine has pubsub on each connection and
// after each engine change, until ctx ends.
func (c *Catalog) followSignal(ctx context.Context, connections <-chan string) {
	defer c.wg.Done()
	bound := false
	for {
		select {
		case _, ok := <-connections:
			if !ok {
				return
			}
		case <-c.signalWake:
		case <-ctx.Done():
			return
		}
		has := c.hasPubSub(ctx)
		if has && !bound {
			c.bindSignal()
			bound = true
		}
		c.mu.Lock()
		was := c.fresh.Signal
		c.fresh.Signal = SignalNone
		if has {
			c.fresh.Signal = SignalPubSub
		}
		c.mu.Unlock()
		if was != c.Freshness().Signal {
			c.log.Info("catalog: cross-engine change signal", zap.String("signal", c.Freshness().Signal), zap.String("topic", SignalTopic))
		}
	}
}

// bindSignal registers the function that receives the signal and binds
// it to SignalTopic; the client replays both on later connections, and an
// engine whose pubsub goes parks the binding until it returns.
func (c *Catalog) bindSignal() {
	c.engine.RegisterFunction(iii.Function{
		ID:          c.signalFunctionID(),
		Description: "Internal: hears other replicas' changes of this skills worker's scopes (pubsub topic " + SignalTopic + ").",
		Metadata:    json.RawMessage(`{"internal":true}`),
		Handler:     c.onSignal,
	})
	c.engine.RegisterTrigger(iii.Trigger{
		ID:         c.signalTriggerID(),
		Type:       subscribeTriggerType,
		FunctionID: c.signalFunctionID(),
		Config:     map[string]string{"topic": SignalTopic},
	})
}

// hasPubSub asks the engine whether it has the publish function and the
// subscribe trigger type, in this worker's namespace or the default one
// (where iii's pubsub worker registers), and routes publish there. Any
// failure to tell reads as no.
func (c *Catalog) hasPubSub(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, signalCheckTimeout)
	defer cancel()
	fnNS, okFn := c.offeredIn(ctx, "engine::functions::list", "functions", "function_id", publishFunction)
	_, okType := c.offeredIn(ctx, "engine::triggers::list", "triggers", "id", subscribeTriggerType)
	if !okFn || !okType {
		return false
	}
	if r, ok := c.engine.(namespaceRouter); ok {
		to := iii.DefaultNamespace
		if fnNS == c.ownNamespace() {
			to = ""
		}
		r.RouteNamespace(publishFunction, to)
	}
	return true
}

// offeredIn lists fn's rows (under list, each naming its id in idField)
// and reports whether id is there, in this worker's namespace (preferred)
// or the default one, and in which.
func (c *Catalog) offeredIn(ctx context.Context, fn, list, idField, id string) (string, bool) {
	res, err := c.engine.Call(ctx, fn, map[string]any{"prefix": id})
	if err != nil {
		return "", false
	}
	var out map[string][]map[string]any
	if json.Unmarshal(res, &out) != nil {
		return "", false
	}
	own, found := c.ownNamespace(), ""
	for _, row := range out[list] {
		if row[idField] != id {
			continue
		}
		ns, _ := row["namespace"].(string)
		if ns == "" {
			ns = iii.DefaultNamespace
		}
		if ns == own {
			return ns, true
		}
		if ns == iii.DefaultNamespace {
			found = ns
		}
	}
	return found, found != ""
}

// signal publishes a change of key in scope whose stored value now has
// hash sum (nil: deleted), when the engine has pubsub. It never waits: a
// publish that does not arrive costs only the reconcile's delay.
func (c *Catalog) signal(scope, key string, sum *valueSum) {
	if c.Freshness().Signal != SignalPubSub {
		return
	}
	msg := signalMessage{Scope: scope, Key: key}
	if sum != nil {
		fp := hex.EncodeToString(sum[:])
		msg.Fingerprint = &fp
	}
	inv := iii.Invocation{FunctionID: publishFunction, Data: publishData{Topic: SignalTopic, Data: msg}}
	if err := c.engine.(voidInvoker).InvokeVoid(inv); err != nil {
		c.log.Debug("catalog: change signal not sent; the reconcile finds the change", zap.Error(err))
	}
}

// onSignal queues the key another replica signalled, unless the message
// says nothing this catalog can use: a scope it does not mirror, or a
// fingerprint its entry already has (a replica's own echo, or a change
// its state events already brought). A message that does not read as
// one is dropped.
func (c *Catalog) onSignal(_ context.Context, req iii.Request) (any, error) {
	scope, key, sum, removed, err := readSignal(req.Data)
	if err != nil {
		c.log.Debug("catalog: a change signal that does not read as one dropped", zap.String("reason", ids.Clip(err.Error())))
		return nil, nil
	}
	for _, s := range c.scopes {
		if s.Name() != scope || s.holdsSignalled(key, sum, removed) {
			continue
		}
		c.foundBy(scope, key, FoundSignal)
	}
	return nil, nil
}

// readSignal reads a signal message: a scope and a key that are strings
// not empty, and a fingerprint that is null (deleted), absent (look
// anyway: sum nil) or 64 hex digits.
func readSignal(data json.RawMessage) (scope, key string, sum *valueSum, removed bool, err error) {
	var m struct {
		Scope       string          `json:"scope"`
		Key         string          `json:"key"`
		Fingerprint json.RawMessage `json:"fingerprint"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return "", "", nil, false, err
	}
	if m.Scope == "" || m.Key == "" || len(m.Key) > maxSignalKey {
		return "", "", nil, false, errors.New("scope and key must be strings that are not empty, the key at most 4096 bytes")
	}
	switch fp := bytes.TrimSpace(m.Fingerprint); {
	case len(fp) == 0:
		return m.Scope, m.Key, nil, false, nil
	case string(fp) == "null":
		return m.Scope, m.Key, nil, true, nil
	default:
		var text string
		var v valueSum
		if json.Unmarshal(fp, &text) != nil || len(text) != 2*len(v) {
			return "", "", nil, false, errors.New("the fingerprint must be null or 64 hex digits")
		}
		if _, err := hex.Decode(v[:], []byte(text)); err != nil {
			return "", "", nil, false, errors.New("the fingerprint must be null or 64 hex digits")
		}
		return m.Scope, m.Key, &v, false, nil
	}
}

// holdsSignalled reports whether the scope's mirror already has what a signal
// says: key absent for a delete, or an entry whose value has hash sum.
// A scope that is not loaded holds nothing (its load reads the key).
func (s *Scope) holdsSignalled(key string, sum *valueSum, removed bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.valid {
		return false
	}
	if sum == nil && !removed {
		return false // look anyway: the message named no value
	}
	return s.entryIs(key, sum, removed)
}

// entryIs reports whether the scope's entry for key is absent (removed)
// or holds the value whose hash is *sum: what a signal and a version
// (read_after.go) both ask of the mirror. Called with s.mu held.
func (s *Scope) entryIs(key string, sum *valueSum, removed bool) bool {
	en, ok := s.entries[key]
	if removed {
		return !ok
	}
	return ok && en.sum == *sum
}
