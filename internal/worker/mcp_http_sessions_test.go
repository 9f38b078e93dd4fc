package worker

import (
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// memInUse is the live heap after a collection plus the goroutines'
// stacks: a session holds both.
func memInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc + m.StackInuse
}

// peakRSS is this process's peak resident memory as Linux reports it,
// for the log.
func peakRSS() string {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// sessionFlood is how many initialize requests TestHTTPSessionsAreCapped
// sends: 10,000, ten times the cap, fit the race detector's time on a
// shared 2-core machine; the 50,000 are run
// with -args -sessions 50000 (BENCHMARKS.md).
var sessionFlood = flag.Int("sessions", 10_000, "initialize requests TestHTTPSessionsAreCapped sends")

// sessionFlood initialize requests (50,000 once held 50,000 sessions and
// 750 MB; issue 27) leave at most DefaultMaxSessions sessions and a bounded
// memory: each one beyond the cap is refused with 503 and a JSON-RPC error
// naming the limit, while the sessions held are served as before; once
// one ends, a new session is served again.
func TestHTTPSessionsAreCapped(t *testing.T) {
	const workers = 8
	initializes := *sessionFlood
	server, hs := testHandler(t, HTTPOptions{})
	before := memInUse()
	var refused, served atomic.Int64
	var firstSession atomic.Value
	var refusal atomic.Value
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for range initializes / workers {
				res, err := hs.Client().Do(newMCPRequest(t, hs.URL+"/mcp", initializeBody))
				if err != nil {
					t.Error(err)
					return
				}
				body, err := io.ReadAll(res.Body)
				res.Body.Close()
				if err != nil {
					t.Error(err)
					return
				}
				switch res.StatusCode {
				case http.StatusOK:
					served.Add(1)
					firstSession.CompareAndSwap(nil, res.Header.Get("Mcp-Session-Id"))
				case http.StatusServiceUnavailable:
					refused.Add(1)
					refusal.CompareAndSwap(nil, string(body))
				default:
					t.Errorf("worker %d: initialize: %d %q; want 200 or 503", w, res.StatusCode, body)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := sessionCount(server); n > DefaultMaxSessions {
		t.Errorf("%d sessions after %d initialize requests; want at most %d", n, initializes, DefaultMaxSessions)
	}
	if n := served.Load(); n < DefaultMaxSessions/2 || n > DefaultMaxSessions {
		t.Errorf("%d initialize requests served; want about %d (the cap)", n, DefaultMaxSessions)
	}
	var msg struct {
		Error struct {
			Code    int
			Message string
		}
	}
	if body, _ := refusal.Load().(string); json.Unmarshal([]byte(body), &msg) != nil || msg.Error.Code != -32000 ||
		!strings.Contains(msg.Error.Message, "holds 1000 sessions, its limit (--max-sessions 1000)") {
		t.Errorf("a refused initialize answered %q; want a JSON-RPC error naming the limit", body)
	}
	// Under the race detector 1,000 sessions hold about 9 MB of heap and
	// stacks, and 20,000 held 170 MB (10,000 about 85). The bound is
	// generous.
	const memBound = 32 << 20
	if grown := int64(memInUse()) - int64(before); grown > memBound {
		t.Errorf("heap and stacks grew by %d MB over %d initialize requests; want at most %d MB", grown>>20, initializes, memBound>>20)
	}
	t.Logf("%d served, %d refused, %d sessions, heap and stacks grown by %.1f MB, peak RSS %s", served.Load(), refused.Load(), sessionCount(server), float64(int64(memInUse())-int64(before))/(1<<20), peakRSS())
	// A session held is still served.
	session, _ := firstSession.Load().(string)
	req := newMCPRequest(t, hs.URL+"/mcp", `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	res, err := hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("a ping on a session held: %d, want 200", res.StatusCode)
	}
	// Once a session ends, a new one is served again.
	req, err = http.NewRequest(http.MethodDelete, hs.URL+"/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Mcp-Session-Id", session)
	if res, err = hs.Client().Do(req); err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res, err = hs.Client().Do(newMCPRequest(t, hs.URL+"/mcp", initializeBody)); err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("an initialize after a session ended (DELETE): %d, want 200", res.StatusCode)
	}
}
