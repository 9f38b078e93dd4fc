package engine

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// The part of the engine's configuration worker that workers use, in
// memory, behind Options.Configuration (docs/engine.md#the-configuration-worker):
// configuration::ensure (0.24), register, set, get, list and schema, with
// the configuration trigger type (configuration_trigger.go). Values are
// validated against the registered JSON Schema (draft 2020-12 or draft-07).
// Not provided: the fs and bridge adapters, ${VAR:default} expansion (get
// returns the stored value whether raw or not), the TTL clean-up and so
// configuration:deleted.

const (
	configurationWorkerName = "configuration"

	codeInvalidID         = "INVALID_ID"
	codeNotRegistered     = "NOT_REGISTERED"
	codeNotFound          = "NOT_FOUND"
	codeSchemaInvalid     = "SCHEMA_INVALID"
	codeSchemaUnavailable = "SCHEMA_UNAVAILABLE"
)

// configurationID is what an entry id must match, so that it is a safe
// file name for the engine's fs adapter.
var configurationID = regexp.MustCompile(`^[a-z0-9_-]{1,64}$`)

var (
	configurationRegisterInput = &inputStruct{name: "ConfigurationRegisterInput", fields: []field{
		{name: "id"}, {name: "name"}, {name: "description"}, {name: "schema", kind: kindAny},
		{name: "initial_value", kind: kindAny, optional: true}, {name: "metadata", kind: kindAny, optional: true},
	}}
	configurationSetInput = &inputStruct{name: "ConfigurationSetInput", fields: []field{
		{name: "id"}, {name: "value", kind: kindAny},
	}}
	configurationGetInput = &inputStruct{name: "ConfigurationGetInput", fields: []field{
		{name: "id"}, {name: "raw", kind: kindBool, optional: true},
	}}
	configurationSchemaInput = &inputStruct{name: "ConfigurationSchemaInput", fields: []field{{name: "id"}}}
	configurationListInput   = &inputStruct{name: "ConfigurationListInput"}
)

func configurationBuiltins() []builtinSpec {
	return []builtinSpec{
		{configurationWorkerName, "configuration::ensure", "Register a configuration id like configuration::register, installing initial_value only when the entry is absent or its value is null, so a stored value is kept.", configurationEnsure},
		{configurationWorkerName, "configuration::register", "Register a configuration id with a name, description, and JSON Schema. Idempotent — re-registering replaces metadata and (when initial_value is provided) the value. Validates initial_value against the schema.", configurationRegister},
		{configurationWorkerName, "configuration::set", "Replace the value of an already-registered configuration. Validates the value against the registered JSON Schema and emits a configuration:updated event.", configurationSet},
		{configurationWorkerName, "configuration::get", "Read a configuration by id. Expands ${VAR:default} placeholders against the live process env unless raw=true is passed.", configurationGet},
		{configurationWorkerName, "configuration::list", "List every registered configuration with id, name, description, and schema. Sorted by id; never returns the stored value.", configurationList},
		{configurationWorkerName, "configuration::schema", "Retrieve the schema, name, and description for a configuration id. Mirrors a single entry from configuration::list.", configurationSchema},
	}
}

// installConfigurationLocked installs the configuration worker's
// functions and trigger type that are missing, in the default namespace,
// when the engine has one.
func (r *registry) installConfigurationLocked() {
	if !r.withConfiguration {
		return
	}
	r.installLocked(DefaultNamespace, configurationBuiltins(), []*triggerType{{id: triggerConfiguration,
		description: triggerConfigurationDescription, worker: configurationWorkerName}})
}

// configurationEntry is one registered configuration. schema, value and
// metadata are canonical JSON; metadata is nil when none was given.
type configurationEntry struct {
	id, name, description string
	schema, value         json.RawMessage
	metadata              json.RawMessage
}

// configurations is the in-memory store; every call is atomic.
type configurations struct {
	mu      sync.Mutex
	entries map[string]*configurationEntry
	changed chan struct{} // closed and replaced on every write (WaitConfiguration)
}

func newConfigurations() *configurations {
	return &configurations{entries: map[string]*configurationEntry{}, changed: make(chan struct{})}
}

// wroteLocked wakes whoever waits for a change of the store.
func (c *configurations) wroteLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

func configurationError(code, format string, args ...any) *wire.ErrorBody {
	return &wire.ErrorBody{Code: code, Message: fmt.Sprintf(format, args...)}
}

func checkConfigurationID(id string) *wire.ErrorBody {
	if !configurationID.MatchString(id) {
		return configurationError(codeInvalidID, "invalid configuration id '%s': must match [a-z0-9_-]{1,64}", id)
	}
	return nil
}

// validateConfiguration checks value against schema; a schema that is
// not a valid JSON Schema fails every value.
func validateConfiguration(value, schema json.RawMessage) *wire.ErrorBody {
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return configurationError(codeSchemaInvalid, "schema validation failed: invalid JSON Schema: %v", err)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		return configurationError(codeSchemaInvalid, "schema validation failed: invalid JSON Schema: %v", err)
	}
	// Numbers as float64: the validator reads a json.Number as a string.
	var v any
	if err := json.Unmarshal(value, &v); err != nil {
		return configurationError(codeSchemaInvalid, "schema validation failed: %v", err)
	}
	if err := resolved.Validate(v); err != nil {
		return configurationError(codeSchemaInvalid, "schema validation failed: %s", strings.ReplaceAll(err.Error(), "\n", " "))
	}
	return nil
}

// configurationEnsure is configuration::ensure (iii 0.24): register, but
// initial_value is installed only where no value is stored yet.
func configurationEnsure(s *Engine, _ string, data json.RawMessage) (json.RawMessage, *wire.ErrorBody) {
	return s.registerConfiguration("configuration::ensure", data, true)
}

// configurationRegister is configuration::register: initial_value, when
// given, replaces the stored value.
func configurationRegister(s *Engine, _ string, data json.RawMessage) (json.RawMessage, *wire.ErrorBody) {
	return s.registerConfiguration("configuration::register", data, false)
}

// registerConfiguration creates or replaces an entry's name, description,
// schema and metadata, fires configuration:registered (new entry) or
// configuration:updated, and returns the entry. A stored value is kept
// when no initial_value is given, without being validated again; with
// keepStored (ensure), it is kept unless it is null.
func (s *Engine) registerConfiguration(fn string, data json.RawMessage, keepStored bool) (json.RawMessage, *wire.ErrorBody) {
	a, e := configurationRegisterInput.decode(fn, data)
	if e != nil {
		return nil, e
	}
	id := a.str("id")
	if e := checkConfigurationID(id); e != nil {
		return nil, e
	}
	entry := &configurationEntry{id: id, name: a.str("name"), description: a.str("description"),
		schema: mustEncode(a["schema"]), value: json.RawMessage("null")}
	if m, ok := a["metadata"]; ok {
		entry.metadata = mustEncode(m)
	}
	c := s.configs
	c.mu.Lock()
	defer c.mu.Unlock()
	prior := c.entries[id]
	if prior != nil {
		entry.value = prior.value
	}
	initial, given := a["initial_value"]
	install := given && (!keepStored || prior == nil || string(prior.value) == "null")
	if install {
		value := mustEncode(initial)
		if e := validateConfiguration(value, entry.schema); e != nil {
			return nil, e
		}
		entry.value = value
	}
	c.entries[id] = entry
	event, old := configurationRegistered, json.RawMessage(nil)
	if prior != nil {
		event, old = configurationUpdated, prior.value
	}
	// Queued under the store's lock, so events leave in the order of the
	// writes.
	s.configurationChanged(event, entry, old)
	return entry.encode(true), nil
}

// configurationSet is configuration::set: the value replaces the stored
// one once it satisfies the schema; it returns {old_value, new_value}.
func configurationSet(s *Engine, _ string, data json.RawMessage) (json.RawMessage, *wire.ErrorBody) {
	a, e := configurationSetInput.decode("configuration::set", data)
	if e != nil {
		return nil, e
	}
	id := a.str("id")
	if e := checkConfigurationID(id); e != nil {
		return nil, e
	}
	c := s.configs
	c.mu.Lock()
	defer c.mu.Unlock()
	prior := c.entries[id]
	switch {
	case prior == nil:
		return nil, configurationError(codeNotRegistered, "configuration '%s' is not registered; call configuration::register first", id)
	case string(prior.schema) == "null":
		return nil, configurationError(codeSchemaUnavailable,
			"configuration '%s' has no schema available yet; the owning worker must register before values can be set", id)
	}
	value := mustEncode(a["value"])
	if e := validateConfiguration(value, prior.schema); e != nil {
		return nil, e
	}
	entry := *prior
	entry.value = value
	c.entries[id] = &entry
	s.configurationChanged(configurationUpdated, &entry, prior.value)
	return mustEncode(map[string]any{"old_value": prior.value, "new_value": value}), nil
}

// configurationGet is configuration::get: {id, value}. A stored value
// that no longer satisfies the schema (registered again with another
// one) is not handed out: SCHEMA_INVALID, as the engine answers.
func configurationGet(s *Engine, _ string, data json.RawMessage) (json.RawMessage, *wire.ErrorBody) {
	a, e := configurationGetInput.decode("configuration::get", data)
	if e != nil {
		return nil, e
	}
	id := a.str("id")
	entry := s.configs.get(id)
	if entry == nil {
		return nil, configurationError(codeNotFound, "configuration '%s' not found", id)
	}
	if raw, _ := a["raw"].(bool); !raw && string(entry.schema) != "null" {
		if e := validateConfiguration(entry.value, entry.schema); e != nil {
			return nil, e
		}
	}
	return mustEncode(map[string]any{"id": id, "value": entry.value}), nil
}

// configurationList is configuration::list: every entry without its
// value, sorted by id.
func configurationList(s *Engine, _ string, data json.RawMessage) (json.RawMessage, *wire.ErrorBody) {
	if _, e := configurationListInput.decode("configuration::list", data); e != nil {
		return nil, e
	}
	c := s.configs
	c.mu.Lock()
	rows := make([]json.RawMessage, 0, len(c.entries))
	for _, id := range slices.Sorted(maps.Keys(c.entries)) {
		rows = append(rows, c.entries[id].encode(false))
	}
	c.mu.Unlock()
	return mustEncode(map[string]any{"configurations": rows}), nil
}

// configurationSchema is configuration::schema: one entry without its
// value.
func configurationSchema(s *Engine, _ string, data json.RawMessage) (json.RawMessage, *wire.ErrorBody) {
	a, e := configurationSchemaInput.decode("configuration::schema", data)
	if e != nil {
		return nil, e
	}
	entry := s.configs.get(a.str("id"))
	if entry == nil {
		return nil, configurationError(codeNotFound, "configuration '%s' not found", a.str("id"))
	}
	return entry.encode(false), nil
}

func (c *configurations) get(id string) *configurationEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries[id]
}

// encode renders the entry, with its value or without (list, schema);
// metadata is left out when none was registered.
func (e *configurationEntry) encode(withValue bool) json.RawMessage {
	m := map[string]any{"id": e.id, "name": e.name, "description": e.description, "schema": e.schema}
	if withValue {
		m["value"] = e.value
	}
	if e.metadata != nil {
		m["metadata"] = e.metadata
	}
	return mustEncode(m)
}
