package features

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/iii-hq/skills-go/internal/iii"
)

// slowGate holds bdd::slow's answers for one scenario: a call waits
// until the scenario opens the gate ("the background call finishes", or
// the scenario's end), so "still running" never depends on how long other
// calls took.
type slowGate struct {
	mu      sync.Mutex
	entered int           // calls that reached bdd::slow
	changed chan struct{} // closed and replaced when one does
	release chan struct{} // closed by open
	once    sync.Once
}

func newSlowGate() *slowGate {
	return &slowGate{changed: make(chan struct{}), release: make(chan struct{})}
}

// enter counts a call that reached bdd::slow.
func (g *slowGate) enter() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.entered++
	close(g.changed)
	g.changed = make(chan struct{})
}

// state returns how many calls reached bdd::slow and a channel closed at
// the next one.
func (g *slowGate) state() (int, <-chan struct{}) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.entered, g.changed
}

// open lets every waiting and later bdd::slow call answer.
func (g *slowGate) open() { g.once.Do(func() { close(g.release) }) }

// helperFunctions are the bdd:: functions the harness serves for the whole
// run: section bodies of every shape, prompt handlers of every shape, a
// slow one and a failing one. Scenarios reach them through iii://fn/bdd/…
// URIs and prompt function_ids.
func (r *run) helperFunctions() []iii.Function {
	constant := func(id string, v any) iii.Function {
		return iii.Function{ID: id, Description: "bdd helper", Handler: func(context.Context, iii.Request) (any, error) { return v, nil }}
	}
	message := func(role, text string) map[string]any {
		return map[string]any{"role": role, "content": map[string]any{"type": "text", "text": text}}
	}
	return []iii.Function{
		// Sections (triggered with {}).
		constant("bdd::str-section", "# String section\n\nstr-section body, returned as a plain string.\n"),
		constant("bdd::content-section", map[string]any{"content": "# Wrapped section\n\nwrapped in {content}.\n"}),
		constant("bdd::json-section", map[string]any{"items": []string{"a", "b"}, "count": 2}),
		constant("bdd::deep", "# Deep\n\ndeep-section body.\n"),
		constant("bdd::deep::triple", "# Triple\n\ntriple-section body.\n"),
		// Prompt handlers (triggered with the caller's arguments).
		constant("bdd::prompt-string", "str body"),
		constant("bdd::prompt-content", map[string]any{"content": "obj body"}),
		constant("bdd::prompt-messages", map[string]any{"messages": []any{message("user", "m1"), message("assistant", "m2")}}),
		constant("bdd::prompt-unsupported", map[string]any{"unexpected": true}),
		constant("bdd::prompt-system-role", map[string]any{"messages": []any{message("system", "be terse")}}),
		constant("bdd::prompt-string-content", map[string]any{"messages": []any{map[string]any{"role": "assistant", "content": "plain"}}}),
		{ID: "bdd::prompt-echo", Description: "bdd helper: renders its payload", Handler: echo},
		{ID: "bdd::slow", Description: "bdd helper: answers when the scenario lets it", Handler: r.slow},
		{ID: "bdd::fail", Description: "bdd helper: always fails", Handler: func(context.Context, iii.Request) (any, error) {
			return nil, &iii.Error{Code: "bdd_failure", Message: "bdd::fail always fails"}
		}},
	}
}

// echo answers "args=<payload>", the payload without the _caller_worker_id
// the engine injects, with sorted keys.
func echo(_ context.Context, req iii.Request) (any, error) {
	var v any
	if err := json.Unmarshal(req.Data, &v); err != nil {
		return nil, err
	}
	if m, ok := v.(map[string]any); ok {
		delete(m, "_caller_worker_id")
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return "args=" + string(b), nil
}

// slow answers "slow-section" once the current scenario's gate opens,
// or gives up with its ctx.
func (r *run) slow(ctx context.Context, _ iii.Request) (any, error) {
	g := r.slowGate()
	g.enter()
	select {
	case <-g.release:
		return "# Slow\n\nslow-section body.\n", nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
