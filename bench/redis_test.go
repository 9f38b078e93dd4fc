package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/iii-hq/skills-go/internal/iii"
)

// BenchmarkStateRedis is issue 28's register and read ratios with the
// engine's state in memory and in Redis (skills engine --state, D71),
// each against an echo of 4 KiB through the same engine in the same run:
// skills::register of 4 KiB one call after another, a skill read served
// from the worker's catalog (resources-read), the same read with no
// catalog (-no-catalog: a state::get per read, so every read reaches
// the store), and a bare state::get of the 4 KiB row. Each rig's Redis is
// a real redis-server of its own on loopback, without persistence
// (redistest).
func BenchmarkStateRedis(b *testing.B) {
	body := skillBody(4096)
	var n atomic.Int64
	for _, store := range []string{"memory", "redis"} {
		for _, catalog := range []bool{true, false} {
			var reply atomic.Value // the read's result, for the echo
			echo := iii.Function{ID: "bench::echo", Description: "returns the read's result",
				Handler: func(context.Context, iii.Request) (any, error) { return reply.Load().(json.RawMessage), nil }}
			r := newRig(b, stateIn(b, store, rigOptions{extra: []iii.Function{echo}, noCatalog: !catalog}))
			r.call(b, "skills::register", map[string]string{"id": "resend/email", "skill": body})
			read := map[string]string{"uri": "iii://resend/email"}
			out := r.call(b, "skills::resources-read", read)
			if !strings.Contains(string(out), "Email provider") {
				b.Fatalf("read returned %s", out)
			}
			reply.Store(out)
			suffix := ""
			if !catalog {
				suffix = "-no-catalog"
			}
			ops := []struct {
				name string
				do   func(b *testing.B)
			}{
				{"echo-4KiB", func(b *testing.B) { r.call(b, "bench::echo", struct{}{}) }},
				{"resources-read-4KiB", func(b *testing.B) { r.call(b, "skills::resources-read", read) }},
			}
			if catalog {
				ops = append(ops, []struct {
					name string
					do   func(b *testing.B)
				}{
					{"register-4KiB", func(b *testing.B) {
						r.call(b, "skills::register", map[string]string{"id": fmt.Sprintf("seq/s%d", n.Add(1)%4096), "skill": body})
					}},
					{"state-get-4KiB", func(b *testing.B) {
						r.call(b, "state::get", map[string]string{"scope": "skills", "key": "resend/email"})
					}},
				}...)
			}
			for _, op := range ops {
				b.Run(store+"/"+op.name+suffix, func(b *testing.B) {
					defer reportCPU(b)()
					for b.Loop() {
						op.do(b)
					}
				})
			}
		}
	}
}
