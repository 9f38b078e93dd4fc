package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// The configuration worker's trigger type
// (docs/engine.md#the-configuration-worker): after every register, ensure
// and set, each binding whose config matches the entry and the event type
// is called with the event, one at a time, each call waiting for its
// result before the next starts, in the order of the writes.
const (
	triggerConfiguration            = "configuration"
	triggerConfigurationDescription = "Configuration trigger — fires on register/update/delete events"
)

// Configuration event types (configuration:deleted is never fired here:
// this engine has no TTL clean-up and no files to remove).
const (
	configurationRegistered = "configuration:registered"
	configurationUpdated    = "configuration:updated"
)

// configurationEvent is the payload a configuration binding receives;
// the encoder sorts its keys, as the engine's serde_json::Value does.
type configurationEvent map[string]any

// configurationBindingConfig is what a configuration binding may filter
// on; every field is optional.
type configurationBindingConfig struct {
	ConfigurationID     *string  `json:"configuration_id"`
	EventTypes          []string `json:"event_types"`
	ConditionFunctionID *string  `json:"condition_function_id"`
}

// parseConfigurationConfig reads a binding's config; absent or null means
// no filter.
func parseConfigurationConfig(raw json.RawMessage) (configurationBindingConfig, error) {
	var c configurationBindingConfig
	if len(raw) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return c, nil
	}
	err := json.Unmarshal(raw, &c)
	return c, err
}

// matches reports whether the binding wants an event of this type for
// entry id (its condition function, if any, is asked separately).
func (c configurationBindingConfig) matches(id, eventType string) bool {
	return (c.ConfigurationID == nil || *c.ConfigurationID == id) &&
		(c.EventTypes == nil || slices.Contains(c.EventTypes, eventType))
}

// checkConfigurationBinding validates a new binding of the configuration
// trigger type: nil, or the error the engine answers with.
func checkConfigurationBinding(m wire.RegisterTrigger) *wire.ErrorBody {
	if _, err := parseConfigurationConfig(m.Config); err != nil {
		return &wire.ErrorBody{Code: "trigger_registration_failed", Message: fmt.Sprintf(
			"Failed to parse configuration trigger config: expected an object with optional fields configuration_id (a string), event_types (a list of strings) and condition_function_id (a string) (%v)", err)}
	}
	return nil
}

// checkBuiltinBinding validates a binding of one of the engine's own
// trigger types that parses its config: nil, or the error to answer.
func checkBuiltinBinding(m wire.RegisterTrigger) *wire.ErrorBody {
	switch m.TriggerType {
	case triggerState:
		return checkStateBinding(m)
	case triggerConfiguration:
		return checkConfigurationBinding(m)
	case triggerSubscribe:
		return checkSubscribeBinding(m)
	}
	return nil
}

// startConfiguration gives the engine its configuration worker when
// Options.Configuration is set: the store, the delivery goroutine, and
// (through the registry's flag) the functions and the trigger type. It
// runs in Start before the registry is initialised.
func (s *Engine) startConfiguration() {
	if !s.opts.Configuration {
		return
	}
	s.registry.withConfiguration = true
	s.configs = newConfigurations()
	s.configEvents = newEventQueue[configurationEvent]()
	s.bg.Add(1)
	go s.deliverConfigurationEvents()
}

// configurationChanged queues the event of a write to entry, under the
// store's lock, and wakes the store's waiters; old is the previous value,
// nil for a new entry. It never blocks the write.
func (s *Engine) configurationChanged(eventType string, entry *configurationEntry, old json.RawMessage) {
	s.configs.wroteLocked()
	ev := configurationEvent{"type": triggerConfiguration, "event_type": eventType, "id": entry.id,
		"name": entry.name, "description": entry.description, "schema": entry.schema,
		"old_value": jsonOrNull(old), "new_value": entry.value}
	if entry.metadata != nil {
		ev["metadata"] = entry.metadata
	}
	s.configEvents.push(ev)
}

// deliverConfigurationEvents runs until the engine closes, delivering the
// queued configuration events in the order of the writes.
func (s *Engine) deliverConfigurationEvents() {
	defer s.bg.Done()
	s.configEvents.run(s.quit, s.deliverConfigurationEvent)
}

// deliverConfigurationEvent calls each matching binding in id order,
// waiting for each call; a binding with a condition function is called
// only when the condition returns true. It returns false when the engine
// is closing.
func (s *Engine) deliverConfigurationEvent(ev configurationEvent) bool {
	targets := s.liveBindingsAt(DefaultNamespace, triggerConfiguration)
	if len(targets) == 0 {
		return true
	}
	id, _ := ev["id"].(string)
	eventType, _ := ev["event_type"].(string)
	payload := mustEncode(ev)
	for _, b := range targets {
		cfg, err := parseConfigurationConfig(b.config)
		if err != nil || !cfg.matches(id, eventType) {
			continue
		}
		if !s.fireBinding(b, cfg.ConditionFunctionID, payload) {
			return false
		}
	}
	return true
}
