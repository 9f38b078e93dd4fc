package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"time"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/iii"
)

// Registrar is what Follow needs of an engine client.
type Registrar interface {
	RegisterFunction(f iii.Function)
	RegisterTrigger(t iii.Trigger)
}

// syncTimeout bounds one Sync.
const syncTimeout = 30 * time.Second

// Follow binds the registry's skills::on-change and prompts::on-change to
// a function of reg's, and re-syncs the lists after each event (events
// that arrive during a sync are coalesced into one more). It runs until
// the returned stop is called.
func (b *Bridge) Follow(reg Registrar) (stop func()) {
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	id := "skills::mcp::changed-" + hex.EncodeToString(suffix)
	kick := make(chan struct{}, 1)
	reg.RegisterFunction(iii.Function{
		ID:          id,
		Description: "Internal: the skills MCP server's view of the registry's changes.",
		Metadata:    json.RawMessage(`{"internal":true}`),
		Handler: func(context.Context, iii.Request) (any, error) {
			select {
			case kick <- struct{}{}:
			default:
			}
			return nil, nil
		},
	})
	// engine::functions-available says a function came or went: an
	// exposed one (an approved typed tool) is a tool to add or remove.
	for _, typ := range []string{contract.SkillsOnChange, contract.PromptsOnChange, "engine::functions-available"} {
		reg.RegisterTrigger(iii.Trigger{ID: id + "-" + typ, Type: typ, FunctionID: id})
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-ctx.Done():
				return
			case <-kick:
				sctx, scancel := context.WithTimeout(ctx, syncTimeout)
				if err := b.Sync(sctx); err != nil && ctx.Err() == nil {
					b.log.Warn("could not refresh the MCP lists after a change", zap.Error(err))
				}
				scancel()
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}
