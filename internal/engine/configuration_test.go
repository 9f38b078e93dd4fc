package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// portSchema is a schema of the kind a worker registers: an object whose
// port is a whole number from 1 to 65535.
const portSchema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"port":{"type":"integer","minimum":1,"maximum":65535}}}`

func newConfigurationServer(t *testing.T) *Engine {
	t.Helper()
	return newTestServerWith(t, Options{Logger: zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel)), Configuration: true})
}

// callErr makes a call that must fail and returns its error.
func callErr(p *peer, fn, data string) *wire.ErrorBody {
	p.t.Helper()
	res := p.call(fn, data)
	if res.Error == nil {
		p.t.Fatalf("%s(%s) = %s, want an error", fn, data, res.Result)
	}
	return res.Error
}

// Without Options.Configuration the engine has no configuration worker,
// as 0.22.1: its functions are not found and its trigger type is absent.
func TestConfigurationIsOffByDefault(t *testing.T) {
	p := dial(t, newTestServer(t))
	if e := callErr(p, "configuration::get", `{"id":"skills"}`); e.Code != "function_not_found" {
		t.Errorf("configuration::get without the option = %+v, want function_not_found", e)
	}
	if got := string(p.callOK("engine::triggers::list", `{"prefix":"configuration"}`)); got != `{"triggers":[]}` {
		t.Errorf("trigger types = %s, want none", got)
	}
}

func TestConfigurationRegisterSetGet(t *testing.T) {
	p := dial(t, newConfigurationServer(t))
	got := p.callOK("configuration::register", `{"id":"svc","name":"Service","description":"d","schema":`+portSchema+`,"initial_value":{"port":3112},"metadata":{"owner":"me"}}`)
	want := `{"description":"d","id":"svc","metadata":{"owner":"me"},"name":"Service","schema":` + string(canonical(json.RawMessage(portSchema))) + `,"value":{"port":3112}}`
	if string(got) != want {
		t.Errorf("register = %s\nwant %s", got, want)
	}
	if got := string(p.callOK("configuration::get", `{"id":"svc"}`)); got != `{"id":"svc","value":{"port":3112}}` {
		t.Errorf("get = %s", got)
	}
	e := callErr(p, "configuration::set", `{"id":"svc","value":{"port":0}}`)
	if e.Code != "SCHEMA_INVALID" || !strings.Contains(e.Message, "minimum") {
		t.Errorf("set of an out-of-range value = %+v, want SCHEMA_INVALID naming the minimum", e)
	}
	if got := string(p.callOK("configuration::set", `{"id":"svc","value":{"port":4242}}`)); got != `{"new_value":{"port":4242},"old_value":{"port":3112}}` {
		t.Errorf("set = %s", got)
	}
	if got := string(p.callOK("configuration::get", `{"id":"svc","raw":true}`)); got != `{"id":"svc","value":{"port":4242}}` {
		t.Errorf("get after set = %s", got)
	}
	if got := string(p.callOK("configuration::schema", `{"id":"svc"}`)); strings.Contains(got, "4242") || !strings.Contains(got, `"name":"Service"`) {
		t.Errorf("schema = %s, want the entry without its value", got)
	}
	p.callOK("configuration::register", `{"id":"alpha","name":"A","description":"","schema":{}}`)
	if got := string(p.callOK("configuration::list", `{}`)); !strings.HasPrefix(got, `{"configurations":[{"description":"","id":"alpha"`) || strings.Contains(got, "4242") {
		t.Errorf("list = %s, want entries sorted by id, without values", got)
	}
}

func TestConfigurationErrors(t *testing.T) {
	p := dial(t, newConfigurationServer(t))
	p.callOK("configuration::register", `{"id":"noschema","name":"n","description":"","schema":null}`)
	for _, c := range []struct{ fn, data, code string }{
		{"configuration::register", `{"id":"Bad Id","name":"n","description":"","schema":{}}`, "INVALID_ID"},
		{"configuration::register", `{"id":"` + strings.Repeat("a", 65) + `","name":"n","description":"","schema":{}}`, "INVALID_ID"},
		{"configuration::register", `{"id":"svc","name":"n","description":"","schema":` + portSchema + `,"initial_value":{"port":"x"}}`, "SCHEMA_INVALID"},
		{"configuration::register", `{"id":"svc","name":"n","description":""}`, "deserialization_error"},
		{"configuration::set", `{"id":"missing","value":1}`, "NOT_REGISTERED"},
		{"configuration::set", `{"id":"noschema","value":1}`, "SCHEMA_UNAVAILABLE"},
		{"configuration::get", `{"id":"missing"}`, "NOT_FOUND"},
		{"configuration::schema", `{"id":"missing"}`, "NOT_FOUND"},
	} {
		if e := callErr(p, c.fn, c.data); e.Code != c.code {
			t.Errorf("%s(%s) = %+v, want %s", c.fn, c.data, e, c.code)
		}
	}
	// A refused register stores nothing.
	if e := callErr(p, "configuration::get", `{"id":"svc"}`); e.Code != "NOT_FOUND" {
		t.Errorf("get after a refused register = %+v, want NOT_FOUND", e)
	}
}

// register replaces a stored value only with an initial_value; ensure
// installs one only where none is stored (absent or null), so an
// operator's value survives the owner's start-up. Both replace the
// schema, and get refuses a stored value the new schema does not accept.
func TestConfigurationEnsureKeepsAStoredValue(t *testing.T) {
	p := dial(t, newConfigurationServer(t))
	reg := func(fn, initial string) string {
		data := `{"id":"svc","name":"n","description":"","schema":` + portSchema
		if initial != "" {
			data += `,"initial_value":` + initial
		}
		return string(p.callOK(fn, data+`}`))
	}
	value := func() string { return string(p.callOK("configuration::get", `{"id":"svc","raw":true}`)) }

	reg("configuration::ensure", `{"port":1}`) // absent: installed
	if got := value(); got != `{"id":"svc","value":{"port":1}}` {
		t.Fatalf("after the first ensure: %s", got)
	}
	p.callOK("configuration::set", `{"id":"svc","value":{"port":2}}`) // the operator's value
	reg("configuration::ensure", `{"port":1}`)
	if got := value(); got != `{"id":"svc","value":{"port":2}}` {
		t.Errorf("ensure replaced a stored value: %s", got)
	}
	reg("configuration::register", "")
	if got := value(); got != `{"id":"svc","value":{"port":2}}` {
		t.Errorf("register without initial_value changed the value: %s", got)
	}
	reg("configuration::register", `{"port":3}`)
	if got := value(); got != `{"id":"svc","value":{"port":3}}` {
		t.Errorf("register with initial_value kept the old value: %s", got)
	}

	p.callOK("configuration::register", `{"id":"empty","name":"n","description":"","schema":{}}`) // null value
	p.callOK("configuration::ensure", `{"id":"empty","name":"n","description":"","schema":{},"initial_value":{"a":1}}`)
	if got := string(p.callOK("configuration::get", `{"id":"empty"}`)); got != `{"id":"empty","value":{"a":1}}` {
		t.Errorf("ensure over a null value = %s, want it installed", got)
	}

	// Another schema, registered without a value: the stored one is kept
	// but no longer handed out unless raw.
	p.callOK("configuration::register", `{"id":"svc","name":"n","description":"","schema":{"type":"string"}}`)
	if e := callErr(p, "configuration::get", `{"id":"svc"}`); e.Code != "SCHEMA_INVALID" {
		t.Errorf("get of a value the schema refuses = %+v, want SCHEMA_INVALID", e)
	}
	if got := value(); got != `{"id":"svc","value":{"port":3}}` {
		t.Errorf("raw get = %s", got)
	}
}

// bindConfiguration registers fn on p and binds it to the configuration
// trigger type with config.
func bindConfiguration(p *peer, id, fn, config string) {
	p.t.Helper()
	p.register(fn)
	p.send(wire.RegisterTrigger{ID: id, TriggerType: triggerConfiguration, FunctionID: fn, Config: json.RawMessage(config)})
	p.barrier()
}

func TestConfigurationTriggerDeliversMatchingEvents(t *testing.T) {
	s := newConfigurationServer(t)
	sub, writer := dial(t, s), dial(t, s)
	bindConfiguration(sub, "all-svc", "sub::all", `{"configuration_id":"svc"}`)
	bindConfiguration(sub, "updates", "sub::updates", `{"configuration_id":"svc","event_types":["configuration:updated"]}`)

	writer.callOK("configuration::register", `{"id":"svc","name":"n","description":"d","schema":{},"initial_value":1}`)
	writer.callOK("configuration::register", `{"id":"other","name":"n","description":"d","schema":{}}`) // another id
	writer.callOK("configuration::set", `{"id":"svc","value":2}`)

	event := func(eventType, old, new string) string {
		return `{"description":"d","event_type":"` + eventType + `","id":"svc","name":"n","new_value":` + new +
			`,"old_value":` + old + `,"schema":{},"type":"configuration"}`
	}
	want := []string{
		"sub::all " + event("configuration:registered", "null", "1"),
		"sub::all " + event("configuration:updated", "1", "2"),
		"sub::updates " + event("configuration:updated", "1", "2"),
	}
	var got []string
	for range want {
		inv := expect[wire.InvokeFunction](sub)
		got = append(got, inv.FunctionID+" "+string(inv.Data))
		sub.send(wire.InvocationResult{InvocationID: inv.InvocationID, FunctionID: inv.FunctionID, Result: json.RawMessage(`null`)})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("configuration events (-want +got):\n%s", diff)
	}
	sub.barrier() // nothing for the other id, nothing for the refused set
	if e := callErr(writer, "configuration::set", `{"id":"missing","value":2}`); e.Code != "NOT_REGISTERED" {
		t.Fatal(e)
	}
	sub.barrier()
}

func TestConfigurationTriggerRefusesABadConfig(t *testing.T) {
	p := dial(t, newConfigurationServer(t))
	p.register("sub::fn")
	p.send(wire.RegisterTrigger{ID: "bad", TriggerType: triggerConfiguration, FunctionID: "sub::fn", Config: json.RawMessage(`{"event_types":"configuration:updated"}`)})
	res := expect[wire.TriggerRegistrationResult](p)
	if res.Error == nil || res.Error.Code != "trigger_registration_failed" || !strings.Contains(res.Error.Message, "event_types") {
		t.Errorf("a binding with a bad config = %+v, want trigger_registration_failed naming event_types", res.Error)
	}
}

// The entries live in the engine, not in a connection: a restart keeps
// them, as it keeps state.
func TestConfigurationSurvivesRestart(t *testing.T) {
	s := newConfigurationServer(t)
	p := dial(t, s)
	p.callOK("configuration::register", `{"id":"svc","name":"n","description":"","schema":{},"initial_value":7}`)
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	p = dial(t, s)
	if got := string(p.callOK("configuration::get", `{"id":"svc"}`)); got != `{"id":"svc","value":7}` {
		t.Errorf("get after a restart = %s", got)
	}
}

// WaitConfiguration returns once an entry of that id is registered, woken
// by the write, and not for another id's; on an engine without the
// configuration worker it fails when its context ends.
func TestWaitConfiguration(t *testing.T) {
	s := newConfigurationServer(t)
	p := dial(t, s)
	waited := make(chan error, 1)
	go func() { waited <- s.WaitConfiguration(waitCtx(t), "svc") }()
	p.callOK("configuration::register", `{"id":"other","name":"n","description":"","schema":{}}`)
	select {
	case err := <-waited:
		t.Fatalf("WaitConfiguration(svc) returned %v after another id was registered", err)
	default:
	}
	p.callOK("configuration::register", `{"id":"svc","name":"n","description":"","schema":{}}`)
	if err := <-waited; err != nil {
		t.Fatalf("WaitConfiguration(svc) = %v after svc was registered", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := newTestServerWith(t, Options{}).WaitConfiguration(ctx, "svc"); err == nil || !strings.Contains(err.Error(), "no configuration worker") {
		t.Errorf("WaitConfiguration without the option = %v; want an error naming the missing worker", err)
	}
}
