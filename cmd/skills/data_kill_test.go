package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/redistest"
)

// The done-when test of issue 28 (D67): a real skills engine --data is
// killed with SIGKILL at a random moment under 8 concurrent writers, five
// times on the same directory; after each restart every write that was
// acknowledged is there with at least the value acknowledged (a write not
// acknowledged may or may not be).
func TestEngineDataLosesNoAcknowledgedWriteToSIGKILL(t *testing.T) {
	testEngineLosesNoAcknowledgedWriteToSIGKILL(t, "--data", t.TempDir())
}

// The same with state in Redis (D71): each engine started after a kill
// reads what its predecessor had acknowledged from the same Redis.
func TestEngineRedisLosesNoAcknowledgedWriteToSIGKILL(t *testing.T) {
	testEngineLosesNoAcknowledgedWriteToSIGKILL(t, "--state", redistest.NewServer(t, redistest.Options{}).URL)
}

// testEngineLosesNoAcknowledgedWriteToSIGKILL runs the kill test against
// skills engine started with args, each time the same.
func testEngineLosesNoAcknowledgedWriteToSIGKILL(t *testing.T, args ...string) {
	start := func() (kill func(), c *iii.Client) {
		t.Helper()
		run, url := startEngineBinary(t, args...)
		c = iii.New(iii.Options{URL: url, Name: "kill-test", ReconnectInitial: time.Hour})
		c.Start()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := c.WaitReady(ctx); err != nil {
			t.Fatal(err)
		}
		return func() {
			if err := run.cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = run.cmd.Wait()
		}, c
	}

	type row struct {
		K string `json:"k"`
		I int    `json:"i"`
	}
	acked := map[string]int{} // key → the highest value acknowledged for it
	var mu sync.Mutex
	check := func(c *iii.Client, round int) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		out, err := c.Call(ctx, "state::list", map[string]string{"scope": "kill"})
		if err != nil {
			t.Fatal(err)
		}
		var rows []row
		if err := json.Unmarshal(out, &rows); err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, r := range rows {
			got[r.K] = r.I
		}
		lost := 0
		for k, i := range acked {
			if v, ok := got[k]; !ok || v < i {
				if lost < 5 {
					t.Errorf("after kill %d: %s acknowledged at %d, found %d (%v)", round, k, i, v, ok)
				}
				lost++
			}
		}
		if lost > 0 {
			t.Fatalf("after kill %d: %d of %d acknowledged keys lost", round, lost, len(acked))
		}
	}

	kill, c := start()
	for round := 1; round <= 5; round++ {
		// kill once the writers have had a random number of writes
		// acknowledged, so the kill falls anywhere in a batch's life
		target := int64(50 + rand.IntN(400))
		var n atomic.Int64
		reached := make(chan struct{})
		var once sync.Once
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Go(func() {
				for i := 0; ; i++ {
					keys := []string{fmt.Sprintf("r%d-w%d-%d", round, w, i), fmt.Sprintf("w%d", w)}
					key := keys[i%2]
					ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
					_, err := c.Call(ctx, "state::set", map[string]any{"scope": "kill", "key": key, "value": row{K: key, I: round*100000 + i}})
					cancel()
					if err != nil {
						return // the engine is gone
					}
					mu.Lock()
					acked[key] = max(acked[key], round*100000+i)
					mu.Unlock()
					if n.Add(1) == target {
						once.Do(func() { close(reached) })
					}
				}
			})
		}
		<-reached
		kill()
		wg.Wait()
		_ = c.Close()
		kill, c = start()
		check(c, round)
		t.Logf("kill %d after %d acknowledged writes: %d keys, all there", round, n.Load(), len(acked))
	}
	_ = c.Close()
	kill()
}
