package iii

import (
	"bytes"
	"encoding/json"

	"go.uber.org/zap"
)

// Probes (docs/decisions.md D72): the binding each replica that follows
// its replicas (FollowReplicas) makes on every trigger type it provides,
// to its own replica function, with probeConfigKey set in its config.
// The engine sends each binding of a type to the type's provider only;
// when a replica registers a type, it becomes the provider and is sent
// every binding, the other replicas' probes among them. A provider that
// is sent another replica's probe tells that replica, which holds
// subscribers the engine no longer routes to it, to forget them. A probe
// is never fired, never logged as a subscriber, never refused.

// probeConfigKey marks a probe binding's config.
const probeConfigKey = "replica_probe"

// isProbe reports whether a binding's config marks it as a probe.
func isProbe(config json.RawMessage) bool {
	if !bytes.Contains(config, []byte(probeConfigKey)) {
		return false
	}
	var m map[string]any
	if json.Unmarshal(config, &m) != nil {
		return false
	}
	v, _ := m[probeConfigKey].(bool)
	return v
}

// probed handles a probe the engine sent this provider: another
// replica's is answered with a notice that this one provides the type.
func (c *Client) probed(s Subscription) {
	c.mu.Lock()
	own := c.replicaFn
	c.mu.Unlock()
	if s.FunctionID == own {
		return
	}
	err := c.InvokeVoid(Invocation{FunctionID: s.FunctionID, Namespace: c.absoluteNamespace(s.Namespace),
		Data: map[string]string{"replica_provider_of": s.TriggerType}})
	if err != nil {
		c.log.Warn("could not tell a replica that this one provides the trigger type",
			zap.String("trigger_type", s.TriggerType), zap.String("function_id", s.FunctionID), zap.Error(err))
	}
}

// replacedAsProvider forgets the subscribers of a type another replica
// now provides: the engine sends them to that one, and it fires to them.
func (c *Client) replacedAsProvider(triggerType string) {
	c.mu.Lock()
	p := c.providers[triggerType]
	c.mu.Unlock()
	if p == nil {
		return
	}
	if n := len(p.Subscribers()); n > 0 {
		c.log.Info("another replica provides the trigger type now; its subscribers are that replica's",
			zap.String("trigger_type", triggerType), zap.Int("subscribers", n))
	}
	p.reset()
}
