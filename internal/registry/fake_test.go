package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/catalog/catalogtest"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/fsource"
	"github.com/iii-hq/skills-go/internal/iii"
)

// fakeEngine is an in-memory Caller that serves state::get/set/delete/list
// the way the engine's state worker does (catalogtest.State: a missing key
// answers with no result at all) plus any functions a test registers. It
// records every call.
type fakeEngine struct {
	state *catalogtest.State
	mu    sync.Mutex
	funcs map[string]func(ctx context.Context, data json.RawMessage) (json.RawMessage, error)
	fail  map[string]error // function id → error every call returns
	calls []fakeCall
}

type fakeCall struct {
	FunctionID string
	Data       string
}

func newFakeEngine() *fakeEngine {
	return &fakeEngine{
		state: catalogtest.NewState(),
		funcs: map[string]func(context.Context, json.RawMessage) (json.RawMessage, error){},
		fail:  map[string]error{},
	}
}

// Call implements Caller.
func (f *fakeEngine) Call(ctx context.Context, functionID string, data any) (json.RawMessage, error) {
	payload, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.calls = append(f.calls, fakeCall{functionID, string(payload)})
	failure := f.fail[functionID]
	fn := f.funcs[functionID]
	f.mu.Unlock()
	if failure != nil {
		return nil, failure
	}
	if fn != nil {
		return fn(ctx, payload)
	}
	if strings.HasPrefix(functionID, "state::") {
		return f.state.Call(ctx, functionID, data)
	}
	return nil, &iii.Error{Code: iii.CodeFunctionNotFound, Message: fmt.Sprintf("Function %s not found", functionID)}
}

// put stores a raw row, as another worker (e.g. the Rust one) would.
func (f *fakeEngine) put(scope, key, value string) { f.state.Put(scope, key, value) }

// value returns the raw row stored at key, or "" when absent.
func (f *fakeEngine) value(scope, key string) string { return f.state.Value(scope, key) }

// handle registers a function the registry may trigger.
func (f *fakeEngine) handle(id string, fn func(ctx context.Context, data json.RawMessage) (json.RawMessage, error)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.funcs[id] = fn
}

// returns registers a function that always answers result.
func (f *fakeEngine) returns(id, result string) {
	f.handle(id, func(context.Context, json.RawMessage) (json.RawMessage, error) {
		if result == "" {
			return nil, nil
		}
		return json.RawMessage(result), nil
	})
}

// failWith makes every call of id fail with err.
func (f *fakeEngine) failWith(id string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail[id] = err
}

// callsTo returns the payloads sent to id, in order.
func (f *fakeEngine) callsTo(id string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.calls {
		if c.FunctionID == id {
			out = append(out, c.Data)
		}
	}
	return out
}

// callCount is the number of calls made so far.
func (f *fakeEngine) callCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

// fakeNotifier records the payloads fired on one trigger type, as JSON.
type fakeNotifier struct {
	mu     sync.Mutex
	events []string
}

// Fire implements Notifier.
func (n *fakeNotifier) Fire(_ context.Context, payload any) int {
	b, err := json.Marshal(payload)
	if err != nil {
		panic(err)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.events = append(n.events, string(b))
	return 1
}

func (n *fakeNotifier) fired() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.events...)
}

// fixture is a Registry wired to fakes, with a fixed clock.
type fixture struct {
	reg            *Registry
	engine         *fakeEngine
	skillEvents    *fakeNotifier
	promptEvents   *fakeNotifier
	ctx            context.Context
	fixedTimestamp string
}

// fixedNow is the fixtures' clock: 2026-05-04T19:22:41.123456789Z.
var fixedNow = time.Date(2026, 5, 4, 19, 22, 41, 123456789, time.UTC)

func newFixture(t *testing.T, fs *fsource.Source) *fixture {
	t.Helper()
	f := &fixture{
		engine:         newFakeEngine(),
		skillEvents:    &fakeNotifier{},
		promptEvents:   &fakeNotifier{},
		ctx:            t.Context(),
		fixedTimestamp: "2026-05-04T19:22:41.123456789+00:00",
	}
	f.reg = New(Config{
		FS:             fs,
		Caller:         f.engine,
		SkillsChanged:  f.skillEvents,
		PromptsChanged: f.promptEvents,
		StateTimeout:   2 * time.Second,
		Now:            func() time.Time { return fixedNow },
	})
	return f
}

// mustRegisterSkill registers a skill through the handler.
func (f *fixture) mustRegisterSkill(t *testing.T, id, body string) {
	t.Helper()
	if _, err := f.reg.registerSkill(f.ctx, registerSkillInput{ID: id, Skill: body}); err != nil {
		t.Fatalf("register %q: %v", id, err)
	}
}

// errText returns err's message and code, "" for nil.
func errText(err error) (msg, code string) {
	if err == nil {
		return "", ""
	}
	return err.Error(), contract.CodeOf(err)
}

// readIn is a resources-read payload with uri set.
func readIn(uri string) readResourceInput { return readResourceInput{URI: &uri} }

func ptr[T any](v T) *T { return &v }
