package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii"
)

// BenchmarkMCPSkillsList measures the MCP Skills extension's listing
// (skills::mcp-skills-list, behind skills/list; docs/mcp.md) over 1,000
// and 10,000 skills of 4 KiB registered in state, through the engine,
// against a no-op echo on the same worker in the same run. Every entry
// carries the SHA-256 of a SKILL.md made from its body: the first listing
// reads and hashes every body (logged), later ones find the digests kept.
// worker-N times the handler alone, in the worker.
//
//	go test -run '^$' -bench MCPSkillsList -benchtime 20x ./bench/
func BenchmarkMCPSkillsList(b *testing.B) {
	echo := iii.NewFunction("bench::echo", "returns nothing", func(context.Context, echoIn) (string, error) { return "", nil })
	for _, n := range []int{1000, 10000} {
		r := newRig(b, rigOptions{extra: []iii.Function{echo}, seed: func(srv *engine.Engine) {
			body := skillBody(4096)
			for i := range n {
				id := fmt.Sprintf("team-%02d/skill-%05d", i%50, i)
				row, _ := json.Marshal(map[string]string{"id": id, "skill": body, "registered_at": "2026-11-23T00:00:00.000000000+00:00"})
				if err := srv.SetState("skills", id, row); err != nil {
					b.Fatal(err)
				}
			}
		}})
		start := time.Now()
		out := r.call(b, contract.FnMCPSkillsList, map[string]any{})
		var list struct {
			Skills []json.RawMessage `json:"skills"`
		}
		if err := json.Unmarshal(out, &list); err != nil || len(list.Skills) != n {
			b.Fatalf("skills::mcp-skills-list gave %d skills (%v), want %d", len(list.Skills), err, n)
		}
		b.Logf("the first listing of %d skills (every body read and hashed) took %s, %d bytes", n, time.Since(start).Round(time.Millisecond), len(out))
		handler := handlerOf(b, r.reg, contract.FnMCPSkillsList)
		b.Run(fmt.Sprintf("worker-%d", n), func(b *testing.B) {
			for range b.N {
				if _, err := handler(context.Background(), iii.Request{Data: json.RawMessage(`{}`)}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("echo-%d", n), func(b *testing.B) {
			for range b.N {
				r.call(b, "bench::echo", map[string]any{})
			}
		})
		b.Run(fmt.Sprintf("list-%d", n), func(b *testing.B) {
			for range b.N {
				r.call(b, contract.FnMCPSkillsList, map[string]any{})
			}
		})
	}
}
