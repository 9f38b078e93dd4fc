package engine

import (
	"fmt"
	"sync"
	"testing"
)

// BenchmarkStateSetData measures state::set through a real WebSocket with
// state kept in Options.DataDir (BENCHMARKS.md, issue 28): one caller
// after another, and 8 callers at once (each on its own connection), so
// the second shows what group commit shares.
func BenchmarkStateSetData(b *testing.B) {
	value := `{"id":"k","body":"# Skill` + fmt.Sprintf("%0512d", 0) + `"}`
	for _, writers := range []int{1, 8} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			s := newTestServerWith(b, Options{DataDir: b.TempDir()})
			peers := make([]*peer, writers)
			for i := range peers {
				peers[i] = dial(b, s)
			}
			b.ResetTimer()
			var wg sync.WaitGroup
			per := (b.N + writers - 1) / writers
			for w, p := range peers {
				wg.Go(func() {
					for i := range per {
						p.callOK("state::set", fmt.Sprintf(`{"scope":"bench","key":"w%d-%d","value":%s}`, w, i%4096, value))
					}
				})
			}
			wg.Wait()
		})
	}
}
