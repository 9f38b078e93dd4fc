package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkStateSetGet measures one synchronous state::set followed by one
// state::get, each a full round trip through a real WebSocket.
func BenchmarkStateSetGet(b *testing.B) {
	s := newTestServerWith(b, Options{})
	p := dial(b, s)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		key := fmt.Sprintf("k%d", i%1024)
		p.callOK("state::set", `{"scope":"bench","key":"`+key+`","value":{"id":"`+key+`","body":"# Skill"}}`)
		if got := p.callOK("state::get", `{"scope":"bench","key":"`+key+`"}`); len(got) == 0 {
			b.Fatal("state::get returned nothing")
		}
		i++
	}
}

// BenchmarkCanonical is the engine's cost of carrying a skills::list of
// 5,000 entries (about 1 MB): as a Go worker writes it (struct order:
// re-encoded without maps), already sorted (passed through), and through
// the decode-and-encode round trip both used to take.
func BenchmarkCanonical(b *testing.B) {
	type entry struct {
		ID           string `json:"id"`
		Bytes        int64  `json:"bytes"`
		RegisteredAt string `json:"registered_at"`
		Origin       string `json:"origin"`
		Tokens       int64  `json:"tokens"`
		SHA256       string `json:"sha256"`
	}
	var list struct {
		Skills []entry `json:"skills"`
	}
	for i := range 5000 {
		list.Skills = append(list.Skills, entry{ID: fmt.Sprintf("team-%02d/skill-%04d", i%50, i), Bytes: 2048,
			RegisteredAt: "2026-11-26T06:00:00.000000000+00:00", Origin: "fs", Tokens: 512, SHA256: strings.Repeat("ab", 32)})
	}
	unsorted, err := json.Marshal(list)
	if err != nil {
		b.Fatal(err)
	}
	sorted := roundTrip(unsorted)
	for _, c := range []struct {
		name string
		fn   func(json.RawMessage) json.RawMessage
		in   json.RawMessage
	}{{"struct-order", canonical, unsorted}, {"sorted", canonical, sorted}, {"round-trip", roundTrip, unsorted}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.in)))
			for b.Loop() {
				c.fn(c.in)
			}
		})
	}
}
