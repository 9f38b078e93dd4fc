package worker

import (
	"context"
	"errors"
	"fmt"

	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/engine"
)

// Dev is a local engine with a worker attached: what skills dev runs,
// and what skills mcp --dev runs beside its MCP server
// (docs/data-path.md#the-worker). NewDev wires it, Run serves until its
// context ends, Close stops the worker, waits for it, then closes the
// engine. It starts no goroutine of its own: the worker's and the
// engine's are theirs, and all have stopped when Close returns.
type Dev struct {
	engine *engine.Engine
	worker *Worker
}

// NewDev attaches a worker for cfg (resolved for its mode,
// config.Resolve) to eng, a local engine already listening
// (engine.Start). The Dev owns eng from the call on, also when NewDev
// fails: Close, or the failure, closes it. opts.URL must be empty: the
// worker's URL is the engine's.
func NewDev(eng *engine.Engine, cfg config.Config, opts Options) (*Dev, error) {
	if eng == nil {
		return nil, errors.New("worker: NewDev needs a local engine that is listening (engine.Start), got nil")
	}
	if opts.URL != "" {
		eng.Close()
		return nil, fmt.Errorf("worker: a dev worker attaches to its own engine, %s; leave Options.URL empty (got %q)", eng.URL(), opts.URL)
	}
	opts.URL = eng.URL()
	w, err := New(cfg, opts)
	if err != nil {
		eng.Close()
		return nil, err
	}
	return &Dev{engine: eng, worker: w}, nil
}

// URL is the local engine's WebSocket URL, for other workers and
// clients.
func (d *Dev) URL() string { return d.engine.URL() }

// Run serves the worker on the local engine until ctx ends or Close is
// called (nil) or the engine refuses the worker (ErrRefused), as
// Worker.Run. The engine keeps listening until Close. A Dev runs once.
func (d *Dev) Run(ctx context.Context) error { return d.worker.Run(ctx) }

// Close stops the worker, as the end of Run's context does, waits until
// Run has returned, then closes the engine. It may be called at any
// time, more than once; a Dev closed before Run never runs.
func (d *Dev) Close() error {
	err := d.worker.Close()
	d.engine.Close()
	return err
}
