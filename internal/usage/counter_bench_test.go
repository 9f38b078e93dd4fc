package usage

import "testing"

// BenchmarkCounterRead is one counted read of an id already counted,
// alone and from every core at once (docs/decisions.md D84).
func BenchmarkCounterRead(b *testing.B) {
	c := NewCounter(nil)
	c.Read("pg/backup")
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			c.Read("pg/backup")
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				c.Read("pg/backup")
			}
		})
	})
}
