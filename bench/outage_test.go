package bench

import (
	"context"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/registry"
)

var outage = flag.Duration("outage", 20*time.Second, "how long BenchmarkReregisterAfterOutage keeps the engine down")

// BenchmarkReregisterAfterOutage measures how long the worker, with the
// client's default reconnect policy, takes to have its functions
// registered again once an engine that was down for -outage is back
// (docs/decisions.md D28: ≤ 2 s). Run it with -benchtime 1x: each
// iteration is one outage.
//
//	go test -run '^$' -bench ReregisterAfterOutage -benchtime 1x ./bench
func BenchmarkReregisterAfterOutage(b *testing.B) {
	ctx := context.Background()
	srv, err := engine.Start(ctx, "127.0.0.1:0", engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	addr := strings.TrimPrefix(srv.URL(), "ws://")
	worker := iii.New(iii.Options{URL: srv.URL(), Name: "skills"})
	for _, f := range workerFunctions(registry.New(registry.Config{Caller: worker})) {
		worker.RegisterFunction(f)
	}
	worker.Start()
	b.Cleanup(func() { worker.Close() })
	wait := func(e *engine.Engine) time.Duration {
		start := time.Now()
		waitCtx, cancel := context.WithTimeout(ctx, *outage+30*time.Second)
		defer cancel()
		if err := e.WaitFunction(waitCtx, contract.FnSkillsRegister); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	wait(srv)
	var worst time.Duration
	b.ResetTimer()
	for range b.N {
		srv.Close()
		time.Sleep(*outage) // the outage being measured, not a wait for an event
		srv, err = engine.Start(ctx, addr, engine.Options{})
		if err != nil {
			b.Fatal(err)
		}
		worst = max(worst, wait(srv))
	}
	b.StopTimer()
	srv.Close()
	b.ReportMetric(float64(worst.Milliseconds()), "ms-to-reregister")
	b.ReportMetric(0, "ns/op")
}
