// Package iiitest starts local iii engines for tests, in the shape of
// net/http/httptest: the engine is the real one from package engine (the
// same code behind `skills dev`), started on a free loopback port and
// closed when the test ends.
package iiitest

import (
	"context"
	"testing"

	"github.com/iii-hq/skills-go/internal/engine"
)

// NewServer starts a local engine on 127.0.0.1 at a free port and closes
// it in tb.Cleanup (Close waits for every goroutine the engine started).
func NewServer(tb testing.TB) *engine.Engine {
	tb.Helper()
	return NewServerWith(tb, engine.Options{})
}

// NewServerWith is NewServer with options, for example a logger that
// shows the engine's log when the test fails.
func NewServerWith(tb testing.TB, opts engine.Options) *engine.Engine {
	tb.Helper()
	e, err := engine.Start(context.Background(), "127.0.0.1:0", opts)
	if err != nil {
		tb.Fatalf("iiitest: start local engine: %v", err)
	}
	tb.Cleanup(e.Close)
	return e
}
