package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/engine"
)

// sdkVersion is the iii-sdk release package.json pins; the tests are the
// protocol's check against it, so any other version is a set-up error.
const sdkVersion = "0.22.1"

// installHint tells a developer how to get what the Node peers need.
const installHint = "run `make interop-deps` (or `cd interop && npm ci`)"

// Limits of one Node peer. peerLineMax bounds one stdout line: the largest
// events carry a 256 KiB payload, twice (data and result), JSON-escaped.
// peerStartTimeout is generous because loading the SDK (OpenTelemetry,
// protobufjs) takes a second of CPU, much longer on a busy CI machine.
const (
	peerLineMax      = 16 << 20
	peerStartTimeout = 30 * time.Second
	peerExitWait     = 10 * time.Second
)

// nodePeer is one running peer.mjs process: a worker built on the official
// Node SDK. Commands go to its stdin, events come back on its stdout and
// are kept in order; its stderr (the SDK's console output) is shown when
// the test fails.
type nodePeer struct {
	t      *testing.T
	name   string
	ready  readyEvent
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *syncBuffer

	wmu sync.Mutex // one command line at a time on stdin
	seq int        // command refs; guarded by wmu

	mu      sync.Mutex
	events  []peerEvent
	taken   []bool
	ended   bool          // stdout reached EOF
	changed chan struct{} // closed and replaced on every new event
	done    chan struct{} // closed when the stdout reader has returned
}

// peerEvent is one stdout line: its "event" and "ref" fields and the line.
type peerEvent struct {
	Event string `json:"event"`
	Ref   string `json:"ref"`
	line  []byte
}

// decode unmarshals the whole event line into v.
func (e peerEvent) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(e.line, v); err != nil {
		t.Fatalf("decode peer event %s: %v", e.line, err)
	}
}

// readyEvent is the first line a peer prints.
type readyEvent struct {
	Name       string `json:"name"`
	PID        int    `json:"pid"`
	Platform   string `json:"platform"`
	Release    string `json:"release"`
	Arch       string `json:"arch"`
	SDKVersion string `json:"sdk_version"`
	OTel       bool   `json:"otel"`
}

// peerOptions configures startPeer.
type peerOptions struct {
	url         string // engine URL; "" = the engine's own
	description string
	otel        bool // leave the SDK's OpenTelemetry on (it opens <url>/otel)
}

// requireNode fails the test when node or the pinned SDK is missing.
func requireNode(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("the interop tests need Node.js (node on PATH) and iii-sdk %s: %v; install Node.js 20+, then %s",
			sdkVersion, err, installHint)
	}
	b, err := os.ReadFile(filepath.Join("node_modules", "iii-sdk", "package.json"))
	if err != nil {
		t.Fatalf("iii-sdk is not installed in interop/node_modules: %v; %s", err, installHint)
	}
	var pkg struct{ Version string }
	if err := json.Unmarshal(b, &pkg); err != nil || pkg.Version != sdkVersion {
		t.Fatalf("interop/node_modules has iii-sdk %q, want %s (err %v); %s", pkg.Version, sdkVersion, err, installHint)
	}
	return node
}

// startPeer runs peer.mjs against srv as worker name and waits for its
// ready line. The process is shut down (stdin closed) or killed, and
// waited for, in t.Cleanup.
func startPeer(t *testing.T, srv *engine.Engine, name string, opts peerOptions) *nodePeer {
	t.Helper()
	node := requireNode(t)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, node, "peer.mjs")
	url := opts.url
	if url == "" {
		url = srv.URL()
	}
	cmd.Env = peerEnv(url, name, opts)
	cmd.WaitDelay = peerExitWait
	p := &nodePeer{t: t, name: name, cmd: cmd, stderr: &syncBuffer{},
		changed: make(chan struct{}), done: make(chan struct{})}
	cmd.Stderr = p.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		cancel()
		t.Fatalf("peer %s: stdin: %v", name, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		t.Fatalf("peer %s: stdout: %v", name, err)
	}
	p.stdin = stdin
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("peer %s: start node: %v", name, err)
	}
	go p.read(stdout)
	t.Cleanup(func() {
		defer cancel()
		p.stop()
		if t.Failed() {
			t.Logf("peer %s stderr:\n%s", name, p.stderr.tail(64<<10))
		}
	})
	p.awaitWithin(peerStartTimeout, "its ready line", func(e peerEvent) bool { return e.Event == "ready" }).decode(t, &p.ready)
	if p.ready.SDKVersion != sdkVersion {
		t.Fatalf("peer %s runs iii-sdk %s, want %s; %s", name, p.ready.SDKVersion, sdkVersion, installHint)
	}
	return p
}

// peerEnv is the test's environment without any iii or OpenTelemetry
// settings the developer may have, plus the peer's own.
func peerEnv(url, name string, opts peerOptions) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "III_") && !strings.HasPrefix(kv, "OTEL_") && !strings.HasPrefix(kv, "PEER_") {
			env = append(env, kv)
		}
	}
	env = append(env, "III_URL="+url, "PEER_NAME="+name, "PEER_TIMEOUT_MS=5000")
	if opts.description != "" {
		env = append(env, "PEER_DESCRIPTION="+opts.description)
	}
	if opts.otel {
		env = append(env, "PEER_OTEL=on")
	} else {
		env = append(env, "OTEL_ENABLED=false")
	}
	return env
}

// read keeps every stdout line as an event until EOF.
func (p *nodePeer) read(stdout io.Reader) {
	defer close(p.done)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64<<10), peerLineMax)
	for sc.Scan() {
		line := bytes.Clone(sc.Bytes())
		var e peerEvent
		if err := json.Unmarshal(line, &e); err != nil {
			// Something wrote to stdout behind the console redirect.
			fmt.Fprintf(p.stderr, "[interop] not an event on stdout: %s\n", line)
			e = peerEvent{Event: "unparsable"}
		}
		e.line = line
		p.mu.Lock()
		p.events = append(p.events, e)
		p.taken = append(p.taken, false)
		close(p.changed)
		p.changed = make(chan struct{})
		p.mu.Unlock()
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(p.stderr, "[interop] reading peer stdout: %v\n", err)
	}
	p.mu.Lock()
	p.ended = true
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
}

// stop closes stdin (the peer shuts its SDK down and exits), kills the
// process if it does not exit in time, and waits for it.
func (p *nodePeer) stop() {
	_ = p.stdin.Close()
	select {
	case <-p.done:
	case <-time.After(peerExitWait):
		p.t.Errorf("peer %s did not exit %v after its stdin closed; killing it", p.name, peerExitWait)
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	if err := p.cmd.Wait(); err != nil {
		p.t.Errorf("peer %s exited: %v", p.name, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range p.events {
		if e.Event == "peer_error" {
			p.t.Errorf("peer %s reported an error: %s", p.name, e.line)
		}
	}
}

// send writes one command, adding a fresh ref, and returns the ref.
func (p *nodePeer) send(op string, fields map[string]any) string {
	p.t.Helper()
	p.wmu.Lock()
	defer p.wmu.Unlock()
	p.seq++
	ref := op + "-" + strconv.Itoa(p.seq)
	cmd := map[string]any{"op": op, "ref": ref}
	for k, v := range fields {
		cmd[k] = v
	}
	b, err := json.Marshal(cmd)
	if err != nil {
		p.t.Fatalf("peer %s: encode %s command: %v", p.name, op, err)
	}
	if _, err := p.stdin.Write(append(b, '\n')); err != nil {
		p.t.Fatalf("peer %s: write %s command: %v", p.name, op, err)
	}
	return ref
}

// do sends a command and waits for the event answering it.
func (p *nodePeer) do(op, answer string, fields map[string]any) peerEvent {
	p.t.Helper()
	return p.awaitEvent(answer, p.send(op, fields))
}

// awaitEvent takes the first event named event (with that ref, if ref is
// not empty) that no earlier wait took.
func (p *nodePeer) awaitEvent(event, ref string) peerEvent {
	p.t.Helper()
	return p.await(fmt.Sprintf("event %q ref %q", event, ref), func(e peerEvent) bool {
		return e.Event == event && (ref == "" || e.Ref == ref)
	})
}

// await takes the first untaken event matching match. It fails the test
// after waitTimeout, when the peer reports an error, or when it exits.
func (p *nodePeer) await(what string, match func(peerEvent) bool) peerEvent {
	p.t.Helper()
	return p.awaitWithin(waitTimeout, what, match)
}

// awaitWithin is await with its own timeout.
func (p *nodePeer) awaitWithin(timeout time.Duration, what string, match func(peerEvent) bool) peerEvent {
	p.t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		p.mu.Lock()
		for i, e := range p.events {
			if e.Event == "peer_error" {
				p.mu.Unlock()
				p.t.Fatalf("peer %s reported an error: %s", p.name, e.line)
			}
			if !p.taken[i] && match(e) {
				p.taken[i] = true
				p.mu.Unlock()
				return e
			}
		}
		ended, changed := p.ended, p.changed
		p.mu.Unlock()
		if ended {
			p.t.Fatalf("peer %s exited while the test waited for %s; stderr:\n%s", p.name, what, p.stderr.tail(16<<10))
		}
		select {
		case <-changed:
		case <-deadline.C:
			p.t.Fatalf("peer %s: no %s within %v", p.name, what, timeout)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and readers in parallel.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	defer bump() // a peer's stderr line, or a log entry
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// tail returns at most the last n bytes.
func (s *syncBuffer) tail(n int) string {
	str := s.String()
	if len(str) > n {
		return "…" + str[len(str)-n:]
	}
	return str
}
