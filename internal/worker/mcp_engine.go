package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/mcpserver"
)

// How an MCP server follows its engine connection (docs/mcp.md#without-an-engine).
const (
	// firstAttemptGrace bounds how long a call made while the first
	// connection attempt is under way waits for it.
	firstAttemptGrace = 2 * time.Second
	// mcpReadyTimeout bounds the wait, with a Dev, for the in-process
	// registry's functions before serving.
	mcpReadyTimeout = 15 * time.Second
	// registryRetry is how often registryReady asks again.
	registryRetry = 20 * time.Millisecond
)

// afterFirstAttempt is the client as the bridge calls it: a call made
// while the first connection attempt is under way waits for its outcome
// (at most firstAttemptGrace), so a client that lists as soon as the
// server has started gets the registry rather than "not connected"; once
// an attempt has succeeded or failed, a call made while the engine is
// away fails at once, naming it.
type afterFirstAttempt struct {
	client    *iii.Client
	attempted <-chan struct{} // closed once the first attempt ended, or the grace did
}

func (a afterFirstAttempt) Call(ctx context.Context, functionID string, data any) (json.RawMessage, error) {
	select {
	case <-a.attempted:
	case <-ctx.Done():
		return nil, fmt.Errorf("invoke %s: %w", functionID, ctx.Err())
	}
	return a.client.Call(ctx, functionID, data)
}

// registryReady waits, up to mcpReadyTimeout, until the registry answers
// through client.
func registryReady(ctx context.Context, client *iii.Client) error {
	ctx, cancel := context.WithTimeout(ctx, mcpReadyTimeout)
	defer cancel()
	if err := client.WaitReady(ctx); err != nil {
		return err
	}
	retry := time.NewTicker(registryRetry)
	defer retry.Stop()
	for {
		_, err := client.Call(ctx, contract.FnSkillsResourcesList, map[string]any{})
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-retry.C:
		}
	}
}

// tellOnConnect tells the MCP clients, on every new connection to the
// engine, that every list may have changed: changes made while the
// engine was away sent no events.
func tellOnConnect(ctx context.Context, client *iii.Client, bridge *mcpserver.Bridge) {
	previous := ""
	for {
		id, err := client.WaitConnection(ctx, previous)
		if err != nil {
			return
		}
		previous = id
		bridge.AllChanged()
	}
}
