package mcpserver

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkBridgeRead measures what the MCP bridge adds to a read
// (issue 13): resources/read of a 4 KiB skill by the Go SDK's client
// through skills mcp (in memory), against skills::resources-read of the
// same skill called through the engine directly, in the same run.
//
//	go test -run '^$' -bench BridgeRead -count 5 ./internal/mcpserver/
func BenchmarkBridgeRead(b *testing.B) {
	r := newRigTB(b, 0)
	body := make([]byte, 4096)
	for i := range body {
		body[i] = 'a' + byte(i%26)
	}
	r.call(b, "skills::register", map[string]string{"id": "bench/doc", "skill": "# Bench\n\n" + string(body)})
	ctx := context.Background()
	b.Run("engine", func(b *testing.B) {
		for range b.N {
			if _, err := r.caller.Call(ctx, "skills::resources-read", map[string]string{"uri": "iii://bench/doc"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("mcp", func(b *testing.B) {
		for range b.N {
			if _, err := r.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "iii://bench/doc"}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
