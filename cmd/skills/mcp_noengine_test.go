package main

import (
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// blackHole is an "engine" that accepts connections and never answers:
// the client's first connection attempt is still under way for as long
// as its connection stays open (until the client's handshake timeout).
type blackHole struct {
	ln     net.Listener
	mu     sync.Mutex
	closed int // connections the client gave up on: attempts that ended
	wg     sync.WaitGroup
}

func newBlackHole(t *testing.T) *blackHole {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := &blackHole{ln: ln}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			h.wg.Add(1)
			go func() {
				defer h.wg.Done()
				_, _ = io.Copy(io.Discard, c) // until the client closes it, or Close below
				h.mu.Lock()
				h.closed++
				h.mu.Unlock()
				c.Close()
			}()
		}
	}()
	// The server process is gone by now (its session closed first), so
	// every connection has ended; the wait covers the goroutines.
	t.Cleanup(func() { ln.Close(); h.wg.Wait() })
	return h
}

// attemptsEnded is how many connection attempts the client has given up.
func (h *blackHole) attemptsEnded() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closed
}

// skills mcp --url without an engine: initialize is answered, and a tool
// call and a list fail with an error naming the engine's URL and
// suggesting --dev, without waiting for the engine. Two engines that are
// not there: nothing listening (each attempt fails at once), and one
// that accepts and never answers, so the client's first connection
// attempt stays under way until its 10 s handshake timeout. There, the
// answers must come while that attempt is still under way: the measure
// is the attempt, not a clock. (Before this change initialize waited for
// the engine for 15 s; a call now waits at most 2 s for a first attempt
// under way, firstAttemptGrace.)
func TestMCPWithoutAnEngineAnswersAtOnce(t *testing.T) {
	t.Run("nothing listening", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		url := "ws://" + ln.Addr().String()
		ln.Close()
		checkNoEngine(t, url, func() int { return 0 })
	})
	t.Run("an engine that never answers", func(t *testing.T) {
		hole := newBlackHole(t)
		checkNoEngine(t, "ws://"+hole.ln.Addr().String(), hole.attemptsEnded)
	})
}

// checkNoEngine runs skills mcp --url url and checks its answers, each
// given before any connection attempt ended (attemptsEnded).
func checkNoEngine(t *testing.T, url string, attemptsEnded func() int) {
	t.Helper()
	cmd := exec.Command(skillsBinary(t), "mcp", "--url", url)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	if n := attemptsEnded(); n > 0 {
		t.Fatalf("initialize was answered only after %d connection attempt(s) to the engine ended", n)
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "skill__fetch", Arguments: map[string]any{"uri": "iii://skills"}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !res.IsError || !strings.Contains(text, url) || !strings.Contains(text, "skills mcp --dev") {
		t.Errorf("tool call without an engine = %q, want an error naming %s and suggesting --dev", text, url)
	}
	_, err = session.ListResources(ctx, nil)
	if err == nil || !strings.Contains(err.Error(), url) || !strings.Contains(err.Error(), "--dev") {
		t.Errorf("resources/list without an engine: %v, want an error naming %s and suggesting --dev", err, url)
	}
	if n := attemptsEnded(); n > 0 {
		t.Errorf("the answers came only after %d connection attempt(s) ended", n)
	}
}
