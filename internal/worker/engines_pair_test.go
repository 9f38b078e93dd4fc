package worker

import (
	"context"
	"testing"

	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/engine"
)

// startEnginePair starts two local engines, A and B, on the Redis at
// redisURL (no pubsub: only what the test asks for makes them agree), a
// skills worker with cfg on each, and on each a caller whose subscriber
// records the worker's skills::on-change (startReplica); it returns once
// both workers have loaded their scopes. Everything stops in t.Cleanup.
func startEnginePair(ctx context.Context, t *testing.T, redisURL string, cfg config.Config) [2]*replica {
	t.Helper()
	var pair [2]*replica
	for i, name := range []string{"A", "B"} {
		pair[i], _ = startReplica(ctx, t, name, cfg, engine.Options{StateURL: redisURL})
	}
	return pair
}
