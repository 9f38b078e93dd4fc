package engine

import (
	"encoding/json"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/zap"
)

// The state file's flusher on a fake clock (testing/synctest): a change
// reaches the disk at the first tick after it, so at most flushInterval
// later, and not before; a change after the last tick is written by
// Close. Only the flusher and the store run here (no sockets, which never
// block durably in a bubble); TestStateIsFlushedWithoutAClose covers the
// running engine.
func TestStateFlushWaitsAtMostOneInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		path := filepath.Join(t.TempDir(), StateFile)
		start := time.Now()
		s, stop := bareEngine(t, Options{})
		s.bg.Add(1)
		go s.persist(path, 0)

		// rows reads the file as the engine reads it at start, once the
		// flusher has done what it can at this instant.
		rows := func() int {
			t.Helper()
			synctest.Wait()
			f, found, err := readStateFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !found {
				return -1
			}
			n := 0
			for _, sc := range f.Scopes {
				n += len(sc.Rows)
			}
			return n
		}
		// at sleeps to offset d from start.
		at := func(d time.Duration) { time.Sleep(d - time.Since(start)) }

		at(flushInterval / 5)
		s.state.set("skills", "a", json.RawMessage(`{"id":"a"}`))
		at(flushInterval - time.Nanosecond)
		if n := rows(); n != -1 {
			t.Fatalf("the state file exists (%d rows) before the first tick", n)
		}
		at(flushInterval)
		if n := rows(); n != 1 {
			t.Fatalf("%d rows on disk at the first tick after a change, want 1", n)
		}

		at(flushInterval + time.Millisecond) // just after a tick: a whole interval to wait
		s.state.set("skills", "b", json.RawMessage(`{"id":"b"}`))
		at(2*flushInterval - time.Nanosecond)
		if n := rows(); n != 1 {
			t.Fatalf("%d rows on disk before the next tick, want 1", n)
		}
		at(2 * flushInterval)
		if n := rows(); n != 2 {
			t.Fatalf("%d rows on disk at the next tick, want 2", n)
		}

		at(2*flushInterval + flushInterval/5)
		s.state.set("skills", "c", json.RawMessage(`{"id":"c"}`))
		stop() // Close writes what no tick has
		if n := rows(); n != 3 {
			t.Errorf("%d rows on disk after Close, want 3", n)
		}
		if got := time.Since(start); got != 2*flushInterval+flushInterval/5 {
			t.Errorf("Close took until %v; the last write must not wait for a tick", got)
		}
	})
}

// bareEngine is an Engine with its registry and state store but no
// listener, for running one of its background goroutines (s.bg) in the
// current bubble. stop closes quit and waits for them; t.Cleanup runs it
// too, and a second call does nothing.
func bareEngine(t *testing.T, opts Options) (s *Engine, stop func()) {
	s = &Engine{opts: opts, state: newStateStore(), stateEvents: newEventQueue[stateEvent](), log: zap.NewNop(), quit: make(chan struct{})}
	s.registry.init()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			close(s.quit)
			s.bg.Wait()
		})
	}
	t.Cleanup(stop)
	return s, stop
}
