package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/iii/iiitest"
)

// reference-behaviour.md §1.4: "`tracing` fmt subscriber writing to
// **stdout**" (worker.md §4 only says the logs are zap, human-readable;
// it is silent on the stream, so the reference applies).
func TestReviewWorkerLogsToStdout(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	missing := filepath.Join(t.TempDir(), "none.yaml")
	code, stdout, stderr := runCmd(t, ctx, "--config", missing, "--url", "ws://127.0.0.1:1")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if !strings.Contains(stdout, "failed to load config, using defaults") {
		t.Errorf("stdout = %q, want the boot warning there (stderr = %q)", stdout, stderr)
	}
}

// reference-behaviour.md §1.4 notable log lines: "registered trigger
// type" (per type) and "trigger subscription registered" / "trigger
// subscription unregistered" (fields trigger_type, id, function_id). The
// worker once provided both trigger types without hooks, so neither the type
// registration nor any subscription change is logged.
func TestReviewTriggerLogLines(t *testing.T) {
	srv := iiitest.NewServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	type result struct{ stdout, stderr string }
	done := make(chan result, 1)
	go func() {
		_, stdout, stderr := runCmd(t, ctx, "--url", srv.URL(), "--config", filepath.Join(t.TempDir(), "none.yaml"))
		done <- result{stdout, stderr}
	}()
	waitCtx, waitCancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer waitCancel()
	if err := srv.WaitTriggerType(waitCtx, "skills::on-change"); err != nil {
		cancel()
		t.Fatal(err)
	}
	caller := newCaller(t, srv)
	caller.RegisterTrigger(iii.Trigger{ID: "review-sub", Type: "skills::on-change", FunctionID: "review::sink"})
	if err := srv.WaitBinding(waitCtx, "review-sub"); err != nil {
		cancel()
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	caller.UnregisterTrigger("review-sub")
	time.Sleep(200 * time.Millisecond)
	cancel()
	var out result
	select {
	case out = <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("worker did not stop")
	}
	logs := out.stdout + out.stderr
	for _, line := range []string{"registered trigger type", "trigger subscription registered", "trigger subscription unregistered"} {
		if !strings.Contains(logs, line) {
			t.Errorf("logs lack %q", line)
		}
	}
}
