package usage

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

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

// BenchmarkFlushRecord is what a flush writes for a catalog of 1,000
// skills whose index is read every hour and 100 of them read, after
// 49 hours (docs/decisions.md D87): the record rewritten every 5 s
// (record-bytes: totals and the current hour) and one closed hour,
// written once (hour-bytes); the time is the snapshot and its encoding.
func BenchmarkFlushRecord(b *testing.B) {
	clk := newClock()
	c := NewCounter(clk.now)
	ids := make([]string, 1000)
	for i := range ids {
		ids[i] = fmt.Sprintf("team%02d/skill-%04d", i%50, i)
	}
	for h := range 49 {
		c.Listed(h, func() []string { return ids })
		for i := range 100 {
			c.Read(ids[(i*7+h)%1000])
		}
		clk.advance(time.Hour)
	}
	c.Listed("now", func() []string { return ids })
	var rec, hour []byte
	for b.Loop() {
		r, closed := c.snapshot("skills-abcdef")
		rec, _ = json.Marshal(r)
		hour, _ = json.Marshal(ClosedHour{Of: "skills-abcdef", Hour: closed[len(closed)-1]})
	}
	b.ReportMetric(float64(len(rec)), "record-bytes")
	b.ReportMetric(float64(len(hour)), "hour-bytes")
}
