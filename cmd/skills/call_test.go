package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gorilla/websocket"

	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/iii/iiitest"
)

func TestCallPayload(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
		err  string
	}{
		{name: "none", args: nil, want: `{}`},
		{name: "json object", args: []string{`{"uri":"iii://skills"}`}, want: `{"uri":"iii://skills"}`},
		{name: "json string", args: []string{`"x"`}, want: `"x"`},
		{name: "pairs", args: []string{"id=a/b", "skill=# T\n\nbody"}, want: `{"id":"a/b","skill":"# T\n\nbody"}`},
		{name: "value keeps equals", args: []string{"uri=iii://x?a=b"}, want: `{"uri":"iii://x?a=b"}`},
		{name: "raw json pair", args: []string{"uris:=[\"iii://a\"]", "n:=5"}, want: `{"n":5,"uris":["iii://a"]}`},
		{name: "malformed json", args: []string{`{"uri":`}, err: `is not valid JSON`},
		{name: "bad raw pair", args: []string{"n:={"}, err: `value of "n" is not valid JSON`},
		{name: "json mixed with pairs", args: []string{`{}`, "a=b"}, err: `is not key=value`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := callPayload(tt.args)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("callPayload(%q) error = %v, want it to contain %q", tt.args, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("callPayload(%q): %v", tt.args, err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("payload (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPrintResult(t *testing.T) {
	tests := []struct {
		name   string
		result string
		asJSON bool
		want   string
	}{
		{name: "nothing", result: ``, want: ``},
		{name: "string raw", result: `"# a\n\nb"`, want: "# a\n\nb\n"},
		{name: "markdown resource raw", result: `{"contents":[{"mimeType":"text/markdown","text":"# Skills\n","uri":"iii://skills"}]}`, want: "# Skills\n"},
		{name: "json resource pretty", result: `{"contents":[{"mimeType":"application/json","text":"{}","uri":"iii://fn/a"}]}`,
			want: "{\n  \"contents\": [\n    {\n      \"mimeType\": \"application/json\",\n      \"text\": \"{}\",\n      \"uri\": \"iii://fn/a\"\n    }\n  ]\n}\n"},
		{name: "object pretty", result: `{"id":"a","removed":true}`, want: "{\n  \"id\": \"a\",\n  \"removed\": true\n}\n"},
		{name: "forced json", result: `"x"`, asJSON: true, want: "\"x\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := printResult(&buf, json.RawMessage(tt.result), tt.asJSON); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, buf.String()); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}

// skills call reports an engine it cannot reach at once, naming the URL
// and the cause, instead of waiting out its --timeout while the client
// retries (docs/decisions.md D28). A URL that could never work
// (http://…) is refused before any dial, as a usage error:
// TestEngineURLIsCheckedAtStart.
func TestCallFailsAtOnceWhenTheEngineCannotBeReached(t *testing.T) {
	tests := []struct{ url, cause string }{
		{"ws://127.0.0.1:1", "connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			start := time.Now()
			code, _, stderr := runCmd(t, context.Background(), "call", "skills::list", "--url", tt.url, "--timeout", "60s")
			if code != exitError {
				t.Errorf("exit code = %d, want %d", code, exitError)
			}
			if !strings.Contains(stderr, "cannot reach the iii engine at "+tt.url) || !strings.Contains(stderr, tt.cause) {
				t.Errorf("stderr = %q, want the unreachable-engine line naming %s and %q", stderr, tt.url, tt.cause)
			}
			if strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr = %q, want exactly one line", stderr)
			}
			// Generous against a loaded machine; the point is that the 60 s
			// timeout is not waited out.
			if elapsed := time.Since(start); elapsed > 5*time.Second {
				t.Errorf("call took %s; it should fail on the first attempt", elapsed)
			}
		})
	}
}

func TestCallUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "no function", args: []string{"call"}, want: "missing <function-id>"},
		{name: "malformed json", args: []string{"call", "skills::list", `{"a":`}, want: "is not valid JSON"},
		{name: "bad timeout", args: []string{"call", "skills::list", "--timeout", "0s"}, want: "--timeout must be positive"},
		{name: "unknown flag", args: []string{"call", "skills::list", "--bogus"}, want: "skills call: unknown flag: --bogus; run 'skills call --help' for usage"},
		{name: "dev unknown flag", args: []string{"dev", "--bogus"}, want: "skills dev: unknown flag: --bogus"},
		{name: "engine bad port", args: []string{"engine", "--port", "70000"}, want: "--port must be between 0 and 65535, got 70000"},
		{name: "blank namespace", args: []string{"call", "skills::list", "--namespace", " "},
			want: `skills call: --namespace " " is blank: name a namespace (such as shop, or default), or leave the flag out to use $III_NAMESPACE`},
		{name: "empty namespace", args: []string{"call", "skills::list", "--namespace", ""}, want: `skills call: --namespace "" is blank`},
		{name: "mcp blank namespace", args: []string{"mcp", "--url", "ws://127.0.0.1:1", "--namespace", ""}, want: `skills mcp: --namespace "" is blank`},
		{name: "mcp dev namespace", args: []string{"mcp", "--dev", "--namespace", "shop"},
			want: `skills mcp: --dev runs its own engine, whose worker serves in the default namespace; leave out --namespace "shop" (it is for --url)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCmd(t, context.Background(), tt.args...)
			if code != exitUsage {
				t.Errorf("exit code = %d, want %d", code, exitUsage)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr = %q, want it to contain %q", stderr, tt.want)
			}
		})
	}
}

func TestCallAgainstLocalEngine(t *testing.T) {
	srv := iiitest.NewServer(t)

	code, _, stderr := runCmd(t, context.Background(), "call", "state::set", "--url", srv.URL(),
		`{"scope":"s","key":"k","value":{"hello":"world"}}`)
	if code != exitOK {
		t.Fatalf("state::set exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runCmd(t, context.Background(), "call", "state::get", "--url", srv.URL(), "scope=s", "key=k")
	if code != exitOK {
		t.Fatalf("state::get exit %d: %s", code, stderr)
	}
	if diff := cmp.Diff("{\n  \"hello\": \"world\"\n}\n", stdout); diff != "" {
		t.Errorf("state::get output (-want +got):\n%s", diff)
	}

	code, _, stderr = runCmd(t, context.Background(), "call", "nope::missing", "--url", srv.URL())
	if code != exitError {
		t.Errorf("unknown function exit = %d, want %d", code, exitError)
	}
	if want := "error: function_not_found: Function nope::missing not found\n"; stderr != want {
		t.Errorf("stderr = %q, want %q", stderr, want)
	}

	// A near miss gets the nearest registered ids from the engine.
	code, _, stderr = runCmd(t, context.Background(), "call", "state::lst", "--url", srv.URL())
	if code != exitError {
		t.Errorf("misspelt function exit = %d, want %d", code, exitError)
	}
	if want := "error: function_not_found: Function state::lst not found; did you mean state::list, state::get or state::set?\n"; stderr != want {
		t.Errorf("stderr = %q, want %q", stderr, want)
	}
}

// skills call calls in the namespace --namespace names, else in
// $III_NAMESPACE's, as the worker reads it: on an iii 0.23 engine it
// reaches a skills worker registered in namespace shop. In the default
// namespace the engine says where the function is, and skills call which
// flag reaches it.
func TestCallReachesAWorkerInANamespace(t *testing.T) {
	srv := iiitest.NewServerWith(t, engine.Options{Namespaces: true})
	t.Setenv("III_NAMESPACE", "shop")
	worker := startCmd(t, "--url", srv.URL(), "--config", filepath.Join(t.TempDir(), "none.yaml"))
	worker.stdout.waitFor(t, "skills ready")
	if _, ok := srv.FunctionIn("shop", "skills::list"); !ok {
		t.Fatalf("the worker did not register skills::list in shop; functions there: %v", srv.FunctionsIn("shop"))
	}
	call := func(args ...string) (int, string, string) {
		t.Helper()
		return runCmd(t, t.Context(), append([]string{"call", "--url", srv.URL()}, args...)...)
	}

	t.Setenv("III_NAMESPACE", "")
	if code, _, stderr := call("skills::register", "--namespace", "shop", "id=hello", "skill=# Hello\n\nFrom the shop."); code != exitOK {
		t.Fatalf("skills::register --namespace shop: exit %d: %s", code, stderr)
	}
	if code, stdout, stderr := call("skills::list", "--namespace", "shop"); code != exitOK || !strings.Contains(stdout, `"id": "hello"`) {
		t.Fatalf("skills::list --namespace shop: exit %d, %s%s; want hello listed", code, stdout, stderr)
	}
	notHere := "error: function_not_found: Function skills::list not found in namespace default. It is registered in namespace(s): shop. Call it there with --namespace shop.\n"
	for _, args := range [][]string{{"skills::list"}, {"skills::list", "--namespace", "default"}} {
		if code, _, stderr := call(args...); code != exitError || stderr != notHere {
			t.Errorf("%q with III_NAMESPACE unset: exit %d, stderr %q; want %d, %q", args, code, stderr, exitError, notHere)
		}
	}

	// Without the flag, $III_NAMESPACE decides, as for the worker; engine::*
	// functions are still called in default, where the engine has them.
	t.Setenv("III_NAMESPACE", "shop")
	if code, stdout, stderr := call("skills::list"); code != exitOK || !strings.Contains(stdout, `"id": "hello"`) {
		t.Errorf("skills::list with III_NAMESPACE=shop: exit %d, %s%s; want hello listed", code, stdout, stderr)
	}
	if code, stdout, stderr := call("engine::functions::list", "prefix=skills::list"); code != exitOK || !strings.Contains(stdout, `"namespace": "shop"`) {
		t.Errorf("engine::functions::list with III_NAMESPACE=shop: exit %d, %s%s; want the shop's skills::list", code, stdout, stderr)
	}
}

// Two skills calls at once on an iii 0.23 engine both answer: the engine
// leases a worker name to one live connection per namespace, so each
// call connects under a name of its own.
func TestCallsAtOnceOnANamespacedEngine(t *testing.T) {
	srv := iiitest.NewServerWith(t, engine.Options{Namespaces: true})
	entered, release := make(chan struct{}), make(chan struct{})
	holder := iii.New(iii.Options{URL: srv.URL(), Name: "holder"})
	holder.RegisterFunction(iii.Function{ID: "test::hold", Handler: func(context.Context, iii.Request) (any, error) {
		close(entered)
		<-release
		return "released", nil
	}})
	holder.Start()
	t.Cleanup(func() { holder.Close() }) //nolint:errcheck // test teardown
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := srv.WaitFunction(ctx, "test::hold"); err != nil {
		t.Fatal(err)
	}

	type result struct {
		code           int
		stdout, stderr string
	}
	first := make(chan result, 1)
	go func() {
		code, stdout, stderr := runCmd(t, ctx, "call", "test::hold", "--url", srv.URL())
		first <- result{code, stdout, stderr}
	}()
	select {
	case <-entered: // the first call's connection is live
	case r := <-first:
		t.Fatalf("the first call ended before it was answered: exit %d, %s", r.code, r.stderr)
	case <-ctx.Done():
		t.Fatal("the first call never reached test::hold")
	}
	code, stdout, stderr := runCmd(t, ctx, "call", "state::list", "--url", srv.URL(), "scope=s")
	close(release)
	if code != exitOK || stdout != "[]\n" {
		t.Errorf("a call while another is live: exit %d, %q %s; want [] (exit 0)", code, stdout, stderr)
	}
	if r := <-first; r.code != exitOK || r.stdout != "released\n" {
		t.Errorf("the first call: exit %d, %q %s; want released", r.code, r.stdout, r.stderr)
	}
}

// --timeout bounds the whole call, dial and handshake included, and the
// error says which step was still waiting: a listener that accepts and
// never answers used to hold skills call for the fixed 10 s handshake
// limit whatever --timeout said.
func TestCallTimeoutBoundsTheHandshake(t *testing.T) {
	silent := silentListener(t)
	upgradeOnly := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		for { // read until the client goes, never greet it
			if _, _, err := ws.ReadMessage(); err != nil {
				return
			}
		}
	}))
	t.Cleanup(upgradeOnly.Close)
	for _, tt := range []struct{ name, url, want string }{
		{"no upgrade answer", "ws://" + silent, "the TCP connection to " + silent + " opened, but the WebSocket upgrade got no answer"},
		{"no greeting", "ws" + strings.TrimPrefix(upgradeOnly.URL, "http"), "opened, but the engine never greeted the worker (workerregistered)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			const timeout = time.Second
			start := time.Now()
			code, _, stderr := runCmd(t, t.Context(), "call", "skills::list", "--url", tt.url, "--timeout", timeout.String())
			elapsed := time.Since(start)
			if code != exitError || !strings.Contains(stderr, "within --timeout 1s: ") || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr, tt.want)
			}
			// Well under the old fixed 10 s; the slack is for a loaded machine.
			if elapsed > timeout+3*time.Second {
				t.Errorf("skills call --timeout %s took %s", timeout, elapsed)
			}
		})
	}
}

// silentListener accepts TCP connections and never writes to them; it
// returns its address. Everything closes at the end of the test.
func silentListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}
