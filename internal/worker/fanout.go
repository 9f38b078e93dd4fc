package worker

import (
	"context"
	"sync"

	"github.com/iii-hq/skills-go/internal/fsource"
)

// change is one rescan that changed the watch's snapshot.
type change struct{ old, updated fsource.Snapshot }

// changeQueue hands the watch's changes to the fan-out goroutine. put
// never blocks, so the watch's OnChange returns at once and its scan lock
// is never held while the registry or the tool set works; every change is
// kept, in order, so the on-change events are those of each rescan, as
// when OnChange did the work itself. A change holds two snapshots the
// watch has already made (no copy), and rescans are coalesced (D20), so
// the queue stays short even when the fan-out is slow.
type changeQueue struct {
	mu      sync.Mutex
	pending []change
	ready   chan struct{} // holds a token while pending is not empty
}

func newChangeQueue() *changeQueue {
	return &changeQueue{ready: make(chan struct{}, 1)}
}

// put queues a change; it is the watch's OnChange.
func (q *changeQueue) put(old, updated fsource.Snapshot) {
	q.mu.Lock()
	q.pending = append(q.pending, change{old, updated})
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default: // a token is waiting already
	}
}

// take returns the queued changes, oldest first, and empties the queue.
func (q *changeQueue) take() []change {
	q.mu.Lock()
	defer q.mu.Unlock()
	batch := q.pending
	q.pending = nil
	return batch
}

// fanOut acts on file changes, from the one goroutine the worker starts
// for it: announce tells the registry (skills::on-change and
// prompts::on-change with source fs, D21), then syncTools, when tools are
// enabled, gives the tool set the newest snapshot (D34).
type fanOut struct {
	changes   *changeQueue
	announce  func(ctx context.Context, old, updated fsource.Snapshot)
	syncTools func(skills []fsource.Skill) // nil without tools
}

// run takes the queued changes until ctx ends. synced is the version of
// the snapshot the tool set was given at start; a change no newer than it
// is not given again, so the set never goes back to an older listing.
func (f fanOut) run(ctx context.Context, synced uint64) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-f.changes.ready:
		}
		batch := f.changes.take()
		for _, c := range batch {
			if ctx.Err() != nil {
				return
			}
			f.announce(ctx, c.old, c.updated)
		}
		if n := len(batch); n > 0 && f.syncTools != nil && batch[n-1].updated.Version > synced {
			f.syncTools(batch[n-1].updated.Skills)
			synced = batch[n-1].updated.Version
		}
	}
}
