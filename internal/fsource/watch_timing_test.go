package fsource

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The watch's timing contract (docs/decisions.md D20), on a fake clock
// (testing/synctest). fsnotify's own goroutine reads a kernel descriptor,
// which never blocks durably in a bubble, so these tests feed the watch's
// loop (follow) events of their own; the real notifications are covered
// by TestWatchSeesFilesComeAndGo and TestWatchCoalescesBursts.

// rescans records, at fake-clock offsets from its start, each rescan that
// published a snapshot, with the skills it listed.
type rescans struct {
	start time.Time
	mu    sync.Mutex
	at    []time.Duration
	n     []int // skills listed by each
}

func (r *rescans) add(_, updated Snapshot) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.at = append(r.at, time.Since(r.start))
	r.n = append(r.n, len(updated.Skills))
}

// settled waits until every goroutine of the bubble is blocked, then
// returns what was published so far.
func (r *rescans) settled() (at []time.Duration, skills []int) {
	synctest.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Duration(nil), r.at...), append([]int(nil), r.n...)
}

// followRig runs a Watch's loop over skills/**/*.md in a temp dir, fed
// by events and errs, inside the current bubble; the clock starts at 0 when
// it returns.
func followRig(t *testing.T) (dir string, events chan<- struct{}, errs chan<- error, rec *rescans) {
	t.Helper()
	return followRigWriting(t, nil)
}

// followRigWriting is followRig whose notifier reports through writing
// whether a file is still being written (nil: never).
func followRigWriting(t *testing.T, writing func() bool) (dir string, events chan<- struct{}, errs chan<- error, rec *rescans) {
	t.Helper()
	dir = t.TempDir()
	rec = &rescans{}
	w := NewWatch(New(dir, []string{"skills/**/*.md"}, nil), WatchOptions{OnChange: rec.add})
	w.writing = writing
	ev, er := make(chan struct{}), make(chan error)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.follow(ctx, ev, er, nil)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	rec.start = time.Now()
	return dir, ev, er, rec
}

// A burst of events within the window is one rescan, made exactly one
// window after the burst's first event, that sees the whole burst.
func TestWatchBurstWithinTheWindowIsOneRescan(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir, events, _, rec := followRig(t)
		for i := range 20 {
			name := filepath.Join(dir, "skills", "burst", fmt.Sprintf("s%02d.md", i))
			write(t, name, "# x\n")
			events <- struct{}{}
			time.Sleep(2 * time.Millisecond) // 20 events over 40 ms
		}
		time.Sleep(coalesceWindow - 40*time.Millisecond - time.Nanosecond)
		if at, _ := rec.settled(); len(at) != 0 {
			t.Fatalf("rescans at %v, before the window after the first event ended", at)
		}
		time.Sleep(time.Nanosecond)
		at, skills := rec.settled()
		if diff := cmp.Diff([]time.Duration{coalesceWindow}, at); diff != "" {
			t.Errorf("rescans (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]int{20}, skills); diff != "" {
			t.Errorf("skills listed by each rescan (-want +got):\n%s", diff)
		}
	})
}

// Under a steady stream of events the window does not slide: the first
// event after a rescan opens the next window, so a change is published at
// most one window after it happened, however long the stream lasts.
func TestWatchSteadyEventsRescanOncePerWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir, events, _, rec := followRig(t)
		// An event every 20 ms from 0 to 200 ms: windows open at 0, 60,
		// 120 and 180 ms (the first event after each rescan).
		for i := range 11 {
			name := filepath.Join(dir, "skills", fmt.Sprintf("s%02d.md", i))
			write(t, name, "# x\n")
			events <- struct{}{}
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(time.Second)
		at, skills := rec.settled()
		w := coalesceWindow
		want := []time.Duration{w, 60*time.Millisecond + w, 120*time.Millisecond + w, 180*time.Millisecond + w}
		if diff := cmp.Diff(want, at); diff != "" {
			t.Errorf("rescans (-want +got):\n%s", diff)
		}
		// Each sees the files written before it: 3 by 50 ms, 6 by 110,
		// 9 by 170, all 11 by 230.
		if diff := cmp.Diff([]int{3, 6, 9, 11}, skills); diff != "" {
			t.Errorf("skills listed by each rescan (-want +got):\n%s", diff)
		}
	})
}

// A watch error (an inotify queue overflow) rescans at once: events may
// have been lost, so no window is waited out.
func TestWatchErrorRescansAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir, _, errs, rec := followRig(t)
		time.Sleep(10 * time.Millisecond)
		write(t, filepath.Join(dir, "skills", "a.md"), "# A\n")
		errs <- errors.New("queue overflow")
		at, skills := rec.settled()
		if diff := cmp.Diff([]time.Duration{10 * time.Millisecond}, at); diff != "" {
			t.Errorf("rescans (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]int{1}, skills); diff != "" {
			t.Errorf("skills listed by each rescan (-want +got):\n%s", diff)
		}
	})
}

// In poll mode a change is seen at the next tick of the poll interval
// (fs_poll_ms, default 2 s) and not before; a change between two ticks
// waits for the later one. The whole watch runs in the bubble: polling
// needs no kernel notifications.
func TestWatchPollSeesAChangeAtTheNextTick(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		rec := &rescans{start: time.Now()}
		w := NewWatch(New(dir, []string{"skills/**/*.md"}, nil), WatchOptions{ForcePoll: true, OnChange: rec.add})
		w.Start(context.Background())
		t.Cleanup(w.Close)
		if w.Mode() != ModePoll {
			t.Fatalf("mode = %s, want poll", w.Mode())
		}

		time.Sleep(DefaultPollInterval / 4)
		write(t, filepath.Join(dir, "skills", "a.md"), "# A\n")
		time.Sleep(DefaultPollInterval*3/4 - time.Nanosecond)
		if at, _ := rec.settled(); len(at) != 0 {
			t.Fatalf("rescans at %v, before the first tick", at)
		}
		time.Sleep(time.Nanosecond)
		if at, skills := rec.settled(); !cmp.Equal([]time.Duration{DefaultPollInterval}, at) || !cmp.Equal([]int{1}, skills) {
			t.Fatalf("rescans at %v listing %v skills, want one at the first tick listing a.md", at, skills)
		}
		time.Sleep(DefaultPollInterval / 2)
		write(t, filepath.Join(dir, "skills", "b.md"), "# B\n") // between ticks
		time.Sleep(DefaultPollInterval/2 - time.Nanosecond)
		if at, _ := rec.settled(); len(at) != 1 {
			t.Fatalf("rescans at %v, want the second only at the next tick", at)
		}
		time.Sleep(time.Nanosecond)
		at, skills := rec.settled()
		if diff := cmp.Diff([]time.Duration{DefaultPollInterval, 2 * DefaultPollInterval}, at); diff != "" {
			t.Errorf("rescans (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]int{1, 2}, skills); diff != "" {
			t.Errorf("skills listed by each rescan (-want +got):\n%s", diff)
		}
		if got := w.Snapshot().Version; got != 3 {
			t.Errorf("version %d after two published rescans, want 3", got)
		}
	})
}

// While a file is still being written (its writer has not closed it),
// the loop holds its rescan window by window, so the rescan sees the
// file whole and one write is one change; once the writer closes it, the
// rescan comes at the end of the window then running. A writer that
// never closes is scanned once maxWriteHold has passed.
func TestWatchHoldsTheRescanWhileAFileIsBeingWritten(t *testing.T) {
	for _, closes := range []bool{true, false} {
		t.Run(fmt.Sprintf("closes=%v", closes), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var writing atomic.Bool
				writing.Store(true)
				dir, events, _, rec := followRigWriting(t, writing.Load)
				write(t, filepath.Join(dir, "skills", "a.md"), "# A, half")
				events <- struct{}{}
				time.Sleep(3*coalesceWindow + time.Nanosecond)
				if at, _ := rec.settled(); len(at) != 0 {
					t.Fatalf("rescans at %v while the file was being written", at)
				}
				want := maxWriteHold // never closed: the hold runs out
				if closes {
					write(t, filepath.Join(dir, "skills", "a.md"), "# A, whole\n")
					writing.Store(false)
					want = 4 * coalesceWindow // the end of the window running at the close
				}
				time.Sleep(2 * maxWriteHold)
				at, skills := rec.settled()
				if diff := cmp.Diff([]time.Duration{want}, at); diff != "" {
					t.Errorf("rescans (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff([]int{1}, skills); diff != "" {
					t.Errorf("skills listed by each rescan (-want +got):\n%s", diff)
				}
			})
		})
	}
}
