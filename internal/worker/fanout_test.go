package worker

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/fsource"
)

// fanRig runs a fanOut whose announce blocks until released, recording
// the versions it is given.
type fanRig struct {
	queue    *changeQueue
	release  chan struct{}
	mu       sync.Mutex
	announce []uint64 // updated versions announced, in order
	got      chan struct{}
	synced   chan uint64 // versions whose skills the tool set was given
}

func startFan(t *testing.T, synced uint64) *fanRig {
	t.Helper()
	r := &fanRig{queue: newChangeQueue(), release: make(chan struct{}), got: make(chan struct{}, 64), synced: make(chan uint64, 64)}
	f := fanOut{
		changes: r.queue,
		announce: func(ctx context.Context, _, updated fsource.Snapshot) {
			select {
			case <-r.release:
			case <-ctx.Done():
				return
			}
			r.mu.Lock()
			r.announce = append(r.announce, updated.Version)
			r.mu.Unlock()
			r.got <- struct{}{}
		},
		syncTools: func(skills []fsource.Skill) { r.synced <- uint64(len(skills)) },
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.run(ctx, synced)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return r
}

// snap is a snapshot of that version holding that many skills, so the
// tool set's calls say which version they were given.
func snap(version uint64) fsource.Snapshot {
	return fsource.Snapshot{Version: version, Skills: make([]fsource.Skill, version)}
}

// syncsUntil returns the versions the tool set was given, in order, up to
// and including last.
func (r *fanRig) syncsUntil(t *testing.T, last uint64) []uint64 {
	t.Helper()
	var got []uint64
	deadline := time.NewTimer(waitTimeout)
	defer deadline.Stop()
	for {
		select {
		case v := <-r.synced:
			if got = append(got, v); v == last {
				return got
			}
		case <-deadline.C:
			t.Fatalf("the tool set was given %v, never %d, within %s", got, last, waitTimeout)
		}
	}
}

// wait waits for n announcements.
func (r *fanRig) wait(t *testing.T, n int) {
	t.Helper()
	deadline := time.NewTimer(waitTimeout)
	defer deadline.Stop()
	for range n {
		select {
		case <-r.got:
		case <-deadline.C:
			t.Fatalf("fewer than %d announcements within %s", n, waitTimeout)
		}
	}
}

// The watch's OnChange (put) returns while the fan-out is busy
// announcing an earlier change: nothing the registry does runs under the
// watch's scan lock. Every change is announced, in order, and the tool
// set is given the newest snapshot after them.
func TestFanOutTakesChangesWithoutBlockingTheWatch(t *testing.T) {
	r := startFan(t, 1)
	r.queue.put(snap(1), snap(2)) // the fan-out takes it and waits in announce
	queued := make(chan struct{})
	go func() {
		r.queue.put(snap(2), snap(3))
		r.queue.put(snap(3), snap(4))
		close(queued)
	}()
	select {
	case <-queued:
	case <-time.After(waitTimeout):
		t.Fatal("OnChange blocked while the fan-out was announcing")
	}
	close(r.release)
	r.wait(t, 3)
	r.queue.put(snap(4), snap(5))
	r.wait(t, 1)
	// The tool set follows each batch's newest snapshot: 2, then 3 and 4
	// taken together or apart, then 5; never an older one after a newer.
	synced := r.syncsUntil(t, 5)
	for i := 1; i < len(synced); i++ {
		if synced[i] <= synced[i-1] {
			t.Errorf("tool set given version %d after %d", synced[i], synced[i-1])
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if diff := cmp.Diff([]uint64{2, 3, 4, 5}, r.announce); diff != "" {
		t.Errorf("announced versions (-want +got):\n%s", diff)
	}
}

// A change the watch made before the tool set's first Sync read a newer
// snapshot is announced but not given to the tool set again.
func TestFanOutNeverGivesTheToolSetAnOlderSnapshot(t *testing.T) {
	r := startFan(t, 3)
	close(r.release)
	r.queue.put(snap(1), snap(2))
	r.wait(t, 1)
	r.queue.put(snap(3), snap(4))
	r.wait(t, 1)
	// Version 2 was not given: the first version the set receives is 4.
	if diff := cmp.Diff([]uint64{4}, r.syncsUntil(t, 4)); diff != "" {
		t.Errorf("versions given to the tool set (-want +got):\n%s", diff)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if diff := cmp.Diff([]uint64{2, 4}, r.announce); diff != "" {
		t.Errorf("announced versions (-want +got):\n%s", diff)
	}
}
