package iii

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// TriggerType is a trigger type this worker provides. The engine forwards
// every binding of the type (registertrigger) and every removal
// (unregistertrigger) to the provider; the hooks run on the read loop, in
// arrival order, and must not block: in particular they must not make
// synchronous calls, whose results that same loop would have to read.
type TriggerType struct {
	ID                   string
	Description          string
	TriggerRequestFormat json.RawMessage // JSON Schema of a binding's config, optional
	CallRequestFormat    json.RawMessage // JSON Schema of the payload fired, optional
	// OnRegister may refuse a binding; the error message is sent back as
	// trigger_registration_failed and the binding is not kept.
	OnRegister func(ctx context.Context, s Subscription) error
	// OnUnregister is told about a removed binding that was kept.
	OnUnregister func(ctx context.Context, s Subscription)
}

// Subscription is one binding of a provided trigger type, as the engine
// forwarded it.
type Subscription struct {
	ID          string
	TriggerType string
	FunctionID  string
	Config      json.RawMessage
	Metadata    json.RawMessage // delivered to the function on every fire
	Namespace   string          // engine 0.23: the function's namespace; "" = default
}

// Provider is the provider side of one trigger type: the current
// subscriber set and the fan-out to it.
type Provider struct {
	c     *Client
	t     TriggerType
	frame []byte // registertriggertype

	mu   sync.Mutex
	subs map[string]Subscription
}

// ProvideTriggerType makes this worker the provider of t: it is registered
// at once when connected and on every connection. A second call with the
// same ID replaces the provider (the old one no longer receives bindings).
// It panics on an empty ID or schemas that are not valid JSON.
func (c *Client) ProvideTriggerType(t TriggerType) *Provider {
	if t.ID == "" {
		panic("iii: ProvideTriggerType: id is required")
	}
	p := &Provider{c: c, t: t, subs: make(map[string]Subscription),
		frame: mustEncode(wire.RegisterTriggerType{ID: t.ID, Description: t.Description,
			TriggerRequestFormat: t.TriggerRequestFormat, CallRequestFormat: t.CallRequestFormat})}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.providers[t.ID] = p
	if c.conn != nil {
		c.conn.send(p.frame)
	}
	return p
}

// Subscribers returns the current bindings, sorted by ID.
func (p *Provider) Subscribers() []Subscription {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.SortedFunc(maps.Values(p.subs), func(a, b Subscription) int { return cmp.Compare(a.ID, b.ID) })
}

// Fire invokes every current subscriber's function once (void), with
// payload as data and the binding's metadata, and returns how many invokes
// were sent. Failures are logged at warn and skipped: a notification must
// never fail the change that caused it. It stops early when ctx is done.
func (p *Provider) Fire(ctx context.Context, payload any) int {
	data, err := encodeJSON(payload)
	if err != nil {
		p.c.log.Warn("on-change fan-out failed", zap.String("trigger_type", p.t.ID), zap.Error(err))
		return 0
	}
	sent := 0
	for _, s := range p.Subscribers() {
		if err := ctx.Err(); err != nil {
			p.c.log.Warn("on-change fan-out failed", zap.String("function_id", s.FunctionID), zap.Error(err))
			break
		}
		// The binding's namespace is the engine's: absent is the default
		// namespace, which a worker elsewhere must name.
		err := p.c.InvokeVoid(Invocation{FunctionID: s.FunctionID, Data: data, Metadata: s.Metadata,
			Namespace: p.c.absoluteNamespace(s.Namespace)})
		if err != nil {
			p.c.log.Warn("on-change fan-out failed", zap.String("function_id", s.FunctionID), zap.Error(err))
			continue
		}
		sent++
	}
	return sent
}

// reset empties the subscriber set when a new connection starts; the
// engine re-sends every binding after the type is registered again.
func (p *Provider) reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	clear(p.subs)
}

// subscribe handles a binding the engine forwards to this provider and
// answers it with triggerregistrationresult on the same connection.
func (c *Client) subscribe(cn *conn, m wire.RegisterTrigger) {
	c.mu.Lock()
	p := c.providers[m.TriggerType]
	c.mu.Unlock()
	res := wire.TriggerRegistrationResult{ID: m.ID, TriggerType: m.TriggerType, FunctionID: m.FunctionID}
	switch {
	case p == nil:
		res.Error = &wire.ErrorBody{Code: CodeTriggerTypeNotFound, Message: "Trigger type not found"}
	case isProbe(m.Config):
		c.probed(Subscription{ID: m.ID, TriggerType: m.TriggerType, FunctionID: m.FunctionID, Namespace: m.Namespace})
	default:
		s := Subscription{ID: m.ID, TriggerType: m.TriggerType, FunctionID: m.FunctionID,
			Config: m.Config, Metadata: m.Metadata, Namespace: m.Namespace}
		if err := c.onRegister(p, s); err != nil {
			res.Error = &wire.ErrorBody{Code: CodeTriggerRegistrationFailed, Message: err.Error()}
		}
	}
	cn.send(mustEncode(res))
}

// onRegister runs the hook and upserts the binding; a refused binding is
// dropped, as the engine parks it.
func (c *Client) onRegister(p *Provider, s Subscription) (err error) {
	if p.t.OnRegister != nil {
		func() {
			defer func() {
				if v := recover(); v != nil {
					err = fmt.Errorf("trigger type %s: OnRegister panicked: %v", p.t.ID, v)
				}
			}()
			err = p.t.OnRegister(c.ctx, s)
		}()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		delete(p.subs, s.ID)
		return err
	}
	p.subs[s.ID] = s
	return nil
}

// unsubscribe handles a removal the engine forwards. Without a known
// trigger_type it cannot be routed and is ignored.
func (c *Client) unsubscribe(m wire.UnregisterTrigger) {
	c.mu.Lock()
	p := c.providers[m.TriggerType]
	c.mu.Unlock()
	if p == nil {
		c.log.Debug("ignored unregistertrigger", zap.String("trigger_id", m.ID), zap.String("trigger_type", m.TriggerType))
		return
	}
	p.mu.Lock()
	s, ok := p.subs[m.ID]
	delete(p.subs, m.ID)
	p.mu.Unlock()
	if !ok || p.t.OnUnregister == nil {
		return
	}
	defer func() {
		if v := recover(); v != nil {
			c.log.Error("OnUnregister panicked", zap.String("trigger_type", p.t.ID), zap.Any("panic", v))
		}
	}()
	p.t.OnUnregister(c.ctx, s)
}
