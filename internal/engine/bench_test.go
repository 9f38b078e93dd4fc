package engine

import (
	"fmt"
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
