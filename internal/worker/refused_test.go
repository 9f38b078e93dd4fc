package worker

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/iii"
)

// An engine that refuses the worker for good ends Run with ErrRefused,
// the rejection in its chain and in the log, and no reconnection; the
// worker command exits 1 on it.
func TestRunEndsWhenTheEngineRefusesTheWorker(t *testing.T) {
	upgrader := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		c, err := upgrader.Upgrade(rw, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		_ = c.WriteMessage(websocket.TextMessage, []byte(
			`{"type":"registrationrejected","code":"WORKER_NAMESPACE_CONFLICT","namespace":"default","worker_name":"skills","owner_worker_id":"w-1"}`))
		for { // read until the worker hangs up
			if _, _, err := c.ReadMessage(); err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	core, logs := observer.New(zap.InfoLevel)
	w, err := New(config.Default(), Options{URL: "ws" + strings.TrimPrefix(srv.URL, "http"), Logger: zap.New(core)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() }) //nolint:errcheck // Run has returned
	ran := make(chan error, 1)
	go func() { ran <- w.Run(context.Background()) }()
	select {
	case err = <-ran:
	case <-time.After(waitTimeout):
		t.Fatal("Run did not return after the engine refused the worker")
	}
	var rejected *iii.RegistrationRejectedError
	if !errors.Is(err, ErrRefused) || !errors.As(err, &rejected) || rejected.Code != "WORKER_NAMESPACE_CONFLICT" {
		t.Errorf("Run = %v, want ErrRefused with the rejection", err)
	}
	if n := logs.FilterMessage("the engine refused this worker; not reconnecting").Len(); n != 1 {
		t.Errorf("refusal logged %d times, want once; log: %v", n, logs.All())
	}
	if g := workerGoroutinesGone(); g != "" {
		t.Errorf("goroutines left after Run:\n%s", g)
	}
}
