package engine

import (
	"sync"
	"testing"

	"go.uber.org/zap"
)

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
