package worker

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/iii/iiitest"
)

// forcedGCs is how many collections were forced so far (runtime.GC,
// debug.FreeOSMemory).
func forcedGCs() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/forced:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// heapInUse is the heap in use after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// The fetch storm of issue 27, scaled down: many callers at once fetch a
// large document each. The bytes the worker's answers hold at once stay
// near max_bytes_in_flight (50 such fetches took a worker from 437 MB to
// 3.8 GB), every caller still gets its document, and once the storm is
// over the worker gives the memory back by itself and the heap is where
// it was (it stayed at its peak for minutes).
func TestFetchStormIsBoundedAndLeavesNothing(t *testing.T) {
	const inFlight = 8 << 20
	srv := iiitest.NewServer(t)
	w := runWorkerWith(t, srv.URL(), "skills: []\nmax_bytes_in_flight: 8388608\n")
	caller := iii.New(iii.Options{URL: srv.URL(), Name: "caller", CallTimeout: 3 * time.Minute})
	caller.Start()
	t.Cleanup(func() { caller.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if err := srv.WaitFunction(ctx, "skill::fetch"); err != nil {
		t.Fatal(err)
	}
	if err := caller.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	body := "# Big\n\n" + strings.Repeat("x", 200_000)
	if _, err := caller.Call(ctx, "skills::register", map[string]string{"id": "big", "skill": body}); err != nil {
		t.Fatal(err)
	}
	uris := make([]string, 10)
	for i := range uris {
		uris[i] = "iii://big"
	}
	baseline := heapInUse()
	gcs := forcedGCs()

	// The storm queues behind the bound: under the race detector on a
	// busy machine it takes far longer than a call usually may. Twelve
	// answers of 2 MB, three times the bound, go in three waves of four:
	// the last wave waits two waves, well within the 20 s a caller waits
	// for room (iii.BytesInFlightWait) even when a wave takes seconds (16
	// answers in waves of two, eight waves, went past it under load).
	ctx, cancel = context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const callers = 12
	var wg sync.WaitGroup
	var peak atomic.Int64
	var failed atomic.Int32
	for range callers {
		wg.Go(func() {
			res, err := caller.Call(ctx, "skill::fetch", map[string]any{"uris": uris})
			if err != nil || len(res) < 10*len(body) {
				t.Errorf("a fetch in the storm: %d bytes, %v", len(res), err)
				failed.Add(1)
			}
			peak.Store(max(peak.Load(), w.client.BytesInFlight()))
		})
	}
	stop, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			peak.Store(max(peak.Load(), w.client.BytesInFlight()))
			select {
			case <-stop:
				return
			default:
				runtime.Gosched()
			}
		}
	}()
	wg.Wait()
	close(stop)
	<-sampled
	// An answer admitted under the bound adds what it learns late without
	// waiting (a body read, the document's headings): at most one answer's
	// worth over it.
	if got := peak.Load(); got > inFlight+2_300_000 {
		t.Errorf("the answers held %d bytes at once; max_bytes_in_flight is %d", got, inFlight)
	}
	// The worker returns the memory by itself once the storm is over.
	for w.client.BytesInFlight() != 0 || forcedGCs() == gcs {
		if ctx.Err() != nil {
			t.Fatalf("%d bytes still in flight, no collection forced, long after the storm", w.client.BytesInFlight())
		}
		runtime.Gosched()
	}
	if after := heapInUse(); after > baseline+8<<20 {
		t.Errorf("heap in use %d MiB after the storm, %d MiB before: something keeps the answers", after>>20, baseline>>20)
	}
}

// runWorkerWith runs a worker of the engine at url with the config file
// text yaml, until the test ends.
func runWorkerWith(t *testing.T, url, yaml string) *Worker {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	write(t, path, yaml)
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := New(config.Resolve(cfg, config.ModeWorker), Options{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- w.Run(context.Background()) }()
	t.Cleanup(func() {
		w.Close() //nolint:errcheck // Run's error says the same
		if err := <-ran; err != nil && !errors.Is(err, ErrClosed) {
			t.Errorf("the worker's run: %v", err)
		}
	})
	return w
}
