package iii

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts in testdata/ from what the client sends")

// TestTranscripts drives the client through scripted conversations with
// the test peer and compares every data frame of every connection, in
// each direction, with a golden txtar file in testdata/. The frames are
// the bytes that went over the socket; only what changes from run to run
// is normalised (UUIDs, the process id, the platform). Run with -update
// to rewrite the files after an intended change of the wire, and review
// the diff: it is the protocol as the engine sees it.
func TestTranscripts(t *testing.T) {
	tests := []struct {
		name    string
		comment string
		opts    func(*Options)
		run     func(t *testing.T, p *peer, c *Client)
	}{
		{
			name: "handshake",
			comment: "A fresh connection (no reattach): worker metadata through engine::workers::register,\n" +
				"then trigger types, functions and triggers, each sorted by id.",
			run: func(t *testing.T, p *peer, c *Client) {
				c.RegisterFunction(Function{ID: "demo::b", Description: "second", Handler: nopHandler})
				c.RegisterFunction(Function{ID: "demo::a", Handler: nopHandler,
					RequestFormat: json.RawMessage(`{"type":"object"}`), ResponseFormat: json.RawMessage(`{"type":"string"}`)})
				c.ProvideTriggerType(TriggerType{ID: "demo::on-z", Description: "type z"})
				c.ProvideTriggerType(TriggerType{ID: "demo::on-a"})
				c.RegisterTrigger(Trigger{ID: "demo::t2", Type: "demo::on-z", FunctionID: "demo::b"})
				c.RegisterTrigger(Trigger{ID: "demo::t1", Type: "demo::on-a", FunctionID: "demo::a",
					Config: map[string]string{"path": "<skills>"}, Metadata: map[string]int{"m": 1}})
				startReady(t, c)
				p.waitFrame("end of the handshake", func(r received) bool {
					m, ok := r.msg.(wire.RegisterTrigger)
					return ok && m.ID == "demo::t2"
				})
			},
		},
		{
			name: "invocation",
			comment: "The engine invokes a function of the worker and gets its result, trace context echoed;\n" +
				"then the worker calls a function of the engine's and gets its result.",
			run: func(t *testing.T, p *peer, c *Client) {
				c.RegisterFunction(Function{ID: "demo::echo", Handler: func(_ context.Context, req Request) (any, error) {
					return map[string]json.RawMessage{"got": req.Data}, nil
				}})
				startReady(t, c)
				id := invocationID(1)
				p.waitConn(1).send(wire.InvokeFunction{InvocationID: id, FunctionID: "demo::echo",
					Data: json.RawMessage(`{"x":1}`), Traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
					Baggage: "k=v"})
				p.waitFrame("result", resultFor(id))
				got, err := c.Call(context.Background(), "echo", map[string]string{"q": "<a&b>"})
				if err != nil || string(got) != `{"q":"<a&b>"}` {
					t.Fatalf("Call = %s, %v", got, err)
				}
			},
		},
		{
			name: "reconnect",
			comment: "The engine drops the connection; the worker reconnects, presents the previous worker id\n" +
				"and reattach token first, and registers everything again.",
			run: func(t *testing.T, p *peer, c *Client) {
				c.RegisterFunction(Function{ID: "demo::echo", Handler: nopHandler})
				startReady(t, c)
				p.waitFrame("first handshake", isType(1, wire.TypeRegisterFunction))
				p.dropAll()
				p.waitFrame("second handshake", isType(2, wire.TypeRegisterFunction))
				waitState(t, c, "the second greeting", func() bool { return c.WorkerID() == workerID(2) })
			},
		},
		{
			name: "namespace",
			comment: "A worker in the namespace orders (engine 0.23, as iii compose starts it with III_NAMESPACE):\n" +
				"the metadata call declares it and goes to default, as every engine::* call does; its binding\n" +
				"targets its own function in orders; its calls go to orders unless they name a namespace.",
			opts: func(o *Options) { o.Namespace = "orders" },
			run: func(t *testing.T, p *peer, c *Client) {
				c.RegisterFunction(Function{ID: "demo::on-state", Handler: nopHandler})
				c.RegisterTrigger(Trigger{ID: "demo::t1", Type: "state", FunctionID: "demo::on-state",
					Config: map[string]string{"scope": "skills"}})
				startReady(t, c)
				if _, err := c.Call(context.Background(), "echo", map[string]string{"key": "a"}); err != nil {
					t.Fatal(err)
				}
				if err := c.InvokeVoid(Invocation{FunctionID: "engine::functions::list"}); err != nil {
					t.Fatal(err)
				}
				if err := c.InvokeVoid(Invocation{FunctionID: "state::get", Namespace: "default", Data: map[string]string{"key": "a"}}); err != nil {
					t.Fatal(err)
				}
				p.waitFrame("the last call", func(r received) bool {
					m, ok := r.msg.(wire.InvokeFunction)
					return ok && m.FunctionID == "state::get"
				})
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := callPeer(t)
			var opts []func(*Options)
			if tt.opts != nil {
				opts = append(opts, tt.opts)
			}
			c, _ := newClient(t, p, opts...)
			tt.run(t, p, c)
			c.Close()
			for n := 1; n <= p.connCount(); n++ {
				p.waitEnded(p.waitConn(n))
			}
			got := transcript(p, tt.comment)
			path := filepath.Join("testdata", tt.name+".txtar")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(got), "\n")); diff != "" {
				t.Errorf("%s (-golden +got; run with -update if the change is intended):\n%s", path, diff)
			}
		})
	}
}

var (
	uuidPattern = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)
	pidPattern  = regexp.MustCompile(`"pid":[0-9]+`)
	osPattern   = regexp.MustCompile(`"os":"[^"]*"`)
)

// transcript renders every connection of p as a txtar archive: for
// connection n, "conn<n>/engine" holds the frames the peer sent and
// "conn<n>/worker" those the client sent, one per line, each in the order
// it went over the socket (the order between the two directions is not
// recorded: it is not deterministic). UUIDs become <id-k>,
// numbered by first appearance, so the same id reads the same everywhere
// (the reattach names the worker id of the connection before).
func transcript(p *peer, comment string) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b bytes.Buffer
	b.WriteString(comment + "\n\nIds are numbered by first appearance; pid and platform are normalised.\n")
	for _, pc := range p.conns {
		for _, side := range []struct {
			name   string
			frames [][]byte
		}{{"engine", pc.toClient}, {"worker", pc.fromClient}} {
			fmt.Fprintf(&b, "-- conn%d/%s --\n", pc.n, side.name)
			for _, f := range side.frames {
				b.Write(f)
				b.WriteByte('\n')
			}
		}
	}
	ids := map[string]string{}
	out := uuidPattern.ReplaceAllFunc(b.Bytes(), func(id []byte) []byte {
		k := strings.ToLower(string(id))
		if _, ok := ids[k]; !ok {
			ids[k] = fmt.Sprintf("<id-%d>", len(ids)+1)
		}
		return []byte(ids[k])
	})
	out = pidPattern.ReplaceAll(out, []byte(`"pid":"<pid>"`))
	return osPattern.ReplaceAll(out, []byte(`"os":"<os>"`))
}
