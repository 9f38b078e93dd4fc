package features

import (
	"context"
	"encoding/json"
	"time"

	"github.com/iii-hq/skills-go/internal/iii"
)

// slowDelay is how long bdd::slow takes to answer: long enough for a
// scenario to do other calls, or stop the worker, while it runs.
const slowDelay = 1500 * time.Millisecond

// helperFunctions are the bdd:: functions the harness serves for the whole
// run: section bodies of every shape, prompt handlers of every shape, a
// slow one and a failing one. Scenarios reach them through iii://fn/bdd/…
// URIs and prompt function_ids.
func helperFunctions() []iii.Function {
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
		{ID: "bdd::prompt-echo", Description: "bdd helper: renders its payload", Handler: echo},
		{ID: "bdd::slow", Description: "bdd helper: answers after a delay", Handler: slow},
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

// slow answers "slow-section" after slowDelay, or gives up with its ctx.
func slow(ctx context.Context, _ iii.Request) (any, error) {
	select {
	case <-time.After(slowDelay):
		return "# Slow\n\nslow-section body.\n", nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
