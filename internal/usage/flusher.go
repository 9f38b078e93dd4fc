package usage

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"
)

// Caller reaches the engine's state: state::set to write a replica's
// record, state::list to read every replica's.
type Caller interface {
	Call(ctx context.Context, functionID string, data any) (json.RawMessage, error)
}

// FlushInterval is how often a Flusher writes its replica's record
// when something was counted since the last write (docs/decisions.md
// D84): usage is for an operator looking back, so seconds of delay cost
// nothing and one state::set per interval is all counting costs the
// engine.
const FlushInterval = 5 * time.Second

// FlusherConfig is what a Flusher needs.
type FlusherConfig struct {
	Counter *Counter // required
	Caller  Caller   // required
	// Scope is the state scope of the replicas' records; Replica is this
	// replica's key in it, its own so no replica overwrites another's.
	Scope, Replica string
	// Stored returns every value in Scope (as skills::usage reads them);
	// with it, once an hour the Flusher deletes the closed hours of every
	// replica, stopped ones too, that are older than the hours kept
	// (D87). Optional.
	Stored func(ctx context.Context) ([]json.RawMessage, error)
	// Interval between writes (default FlushInterval); Timeout bounds one
	// write.
	Interval, Timeout time.Duration
	Logger            *zap.Logger
}

// Flusher writes its Counter's totals to state from one goroutine it
// owns: Start starts it, Close stops it after a last write. A write that
// fails leaves the totals in memory, marked changed, and the next one
// writes them; no read ever waits on it.
type Flusher struct {
	cfg FlusherConfig
	mu  sync.Mutex // one write at a time
	// written are the closed hours stored under their own keys (D87),
	// deleted once the counter no longer keeps them; swept is the hour
	// the other replicas' old hours were last swept in. Guarded by mu.
	written map[int64]bool
	swept   int64

	life    sync.Mutex
	started bool
	closed  bool
	stop    chan struct{}
	done    chan struct{}
	cancel  context.CancelFunc // ends the goroutine's write in flight; set by Start
}

// NewFlusher returns a Flusher over cfg; it panics without a Counter or
// a Caller, a wiring mistake caught at start-up.
func NewFlusher(cfg FlusherConfig) *Flusher {
	if cfg.Counter == nil || cfg.Caller == nil {
		panic("usage: FlusherConfig.Counter and Caller are required")
	}
	if cfg.Interval <= 0 {
		cfg.Interval = FlushInterval
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	return &Flusher{cfg: cfg, written: map[int64]bool{}, stop: make(chan struct{}), done: make(chan struct{})}
}

// Start starts the goroutine that writes every Interval; once, and not
// after Close.
func (f *Flusher) Start() {
	f.life.Lock()
	defer f.life.Unlock()
	if f.started || f.closed {
		return
	}
	f.started = true
	// The goroutine's writes live as long as it does: Close ends one in
	// flight (its counts stay marked changed) and writes them itself.
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	go func() {
		defer close(f.done)
		defer cancel()
		t := time.NewTicker(f.cfg.Interval)
		defer t.Stop()
		for {
			select {
			case <-f.stop:
				return
			case <-t.C:
				if err := f.Flush(ctx); err != nil {
					f.cfg.Logger.Debug("usage counts kept in memory, written at the next flush", zap.Error(err))
				}
			}
		}
	}()
}

// Close stops the goroutine Start started and waits for it, then writes
// what was counted since the last write, within ctx (a worker calls it
// while its engine connection is still up). The error is that write's.
func (f *Flusher) Close(ctx context.Context) error {
	f.life.Lock()
	if !f.closed {
		f.closed = true
		close(f.stop)
		if f.cancel != nil {
			f.cancel()
		}
	}
	started := f.started
	f.life.Unlock()
	if started {
		<-f.done
	}
	return f.Flush(ctx)
}

// Flush writes the record now when anything was counted since the last
// successful write, after the hours closed since (each once, under its
// own key), then deletes the closed hours the counter no longer keeps
// (D87); a failed write marks the counts changed again, and the next
// Flush writes what is still to write.
func (f *Flusher) Flush(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.cfg.Counter
	if !c.changed.Swap(false) {
		return nil
	}
	rec, closed := c.snapshot(f.cfg.Replica)
	ctx, cancel := context.WithTimeout(ctx, f.cfg.Timeout)
	defer cancel()
	if err := f.write(ctx, rec, closed); err != nil {
		c.changed.Store(true)
		return err
	}
	return nil
}

func (f *Flusher) write(ctx context.Context, rec Record, closed []Hour) error {
	kept := make(map[int64]bool, len(closed))
	for _, h := range closed {
		n := hourOfTime(h.Start)
		kept[n] = true
		if f.written[n] {
			continue
		}
		if err := f.call(ctx, "state::set", hourKey(f.cfg.Replica, n), ClosedHour{Of: f.cfg.Replica, Hour: h}); err != nil {
			return err
		}
		f.written[n] = true
	}
	if err := f.call(ctx, "state::set", f.cfg.Replica, rec); err != nil {
		return err
	}
	for n := range f.written {
		if kept[n] {
			continue
		}
		if err := f.call(ctx, "state::delete", hourKey(f.cfg.Replica, n), nil); err != nil {
			return err
		}
		delete(f.written, n)
	}
	if cur := f.cfg.Counter.hour.Load(); f.cfg.Stored != nil && cur != f.swept {
		if err := f.sweep(ctx, cur); err != nil {
			return err
		}
		f.swept = cur
	}
	return nil
}

// sweep deletes every other replica's closed hours older than the hours
// kept: no answer counts them any more, so deleting one twice (two
// replicas sweeping at once) or late changes nothing. A replica that
// stopped leaves its record, not its hours (D87).
func (f *Flusher) sweep(ctx context.Context, cur int64) error {
	values, err := f.cfg.Stored(ctx)
	if err != nil {
		return fmt.Errorf("usage: listing %s: %w", f.cfg.Scope, err)
	}
	_, closed := stored(values, f.cfg.Replica)
	for k := range closed {
		if n := floorDiv(k.start, 3600); n <= cur-HoursKept {
			if err := f.call(ctx, "state::delete", hourKey(k.replica, n), nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// call is one state::set (value non-nil) or state::delete of key in the
// usage scope.
func (f *Flusher) call(ctx context.Context, fn, key string, value any) error {
	req := map[string]any{"scope": f.cfg.Scope, "key": key}
	if value != nil {
		req["value"] = value
	}
	if _, err := f.cfg.Caller.Call(ctx, fn, req); err != nil {
		return fmt.Errorf("usage: %s of %s/%s: %w", fn, f.cfg.Scope, key, err)
	}
	return nil
}
