package worker

import (
	"context"
	"sync"
)

// runOnce is the life of something that runs once and can be closed at
// any time, before, during or after its run (Worker, MCPServer): its
// context ends at Close or with Run's; Close waits for a run in progress.
type runOnce struct {
	ctx    context.Context // ends at Close; Run also ends with its own
	cancel context.CancelFunc

	mu      sync.Mutex
	started bool
	closed  bool
	done    chan struct{} // closed when Run returns
}

func newRunOnce() runOnce {
	ctx, cancel := context.WithCancel(context.Background())
	return runOnce{ctx: ctx, cancel: cancel, done: make(chan struct{})}
}

// beginRun starts the one run: the context it returns ends at Close or
// with parent, and Run defers finish. ErrClosed when closed or already
// run.
func (r *runOnce) beginRun(parent context.Context) (ctx context.Context, finish func(), err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.started || r.closed {
		return nil, nil, ErrClosed
	}
	r.started = true
	stop := context.AfterFunc(parent, r.cancel)
	return r.ctx, func() {
		stop()
		r.cancel()
		close(r.done)
	}, nil
}

// closeRun ends the run's context, marks it closed (a later Run returns
// ErrClosed) and waits for a run in progress to return. It reports
// whether Run had started.
func (r *runOnce) closeRun() (started bool) {
	r.cancel()
	r.mu.Lock()
	r.closed = true
	started = r.started
	r.mu.Unlock()
	if started {
		<-r.done
	}
	return started
}
