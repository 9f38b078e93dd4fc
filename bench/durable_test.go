package bench

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// BenchmarkDurableData is state::set and skills::register of 4 KiB through
// the engine, one caller after another and 8 at once, with the engine's
// state in memory and in a data directory (skills engine --data; issue 28,
// docs/decisions.md D67): what an acknowledgement on disk costs, and what
// group commit gives back to concurrent callers.
func BenchmarkDurableData(b *testing.B) {
	body := skillBody(4096)
	var n atomic.Int64
	for _, store := range []string{"memory", "data"} {
		r := newRig(b, stateIn(b, store, rigOptions{}))
		ops := []struct {
			name string
			do   func(b *testing.B)
		}{
			{"state-set", func(b *testing.B) {
				id := n.Add(1)
				r.call(b, "state::set", map[string]any{"scope": "bench", "key": fmt.Sprintf("k%d", id%4096), "value": map[string]string{"body": body}})
			}},
			{"register", func(b *testing.B) {
				r.call(b, "skills::register", map[string]string{"id": fmt.Sprintf("dur/s%d", n.Add(1)%4096), "skill": body})
			}},
		}
		for _, op := range ops {
			for _, callers := range []int{1, 8} {
				b.Run(fmt.Sprintf("%s/%s/callers=%d", store, op.name, callers), func(b *testing.B) {
					var left atomic.Int64
					left.Store(int64(b.N))
					var wg sync.WaitGroup
					for range callers {
						wg.Go(func() {
							for left.Add(-1) >= 0 {
								op.do(b)
							}
						})
					}
					wg.Wait()
					b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
				})
			}
		}
	}
}
