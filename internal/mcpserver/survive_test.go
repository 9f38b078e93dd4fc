package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/iii-hq/skills-go/internal/iii"
)

// No request ends a session (docs/mcp.md, "Errors"): whatever a client
// sends, the server answers, and answers the next request.

// hostileURIs hold what no URI template matches: control characters
// (NUL, U+0001, ESC, DEL, BEL, VT) and a rune Go prints as \U…, each of
// which the SDK's own resource-not-found error (mcp.ResourceNotFoundError)
// would write as data that is not JSON.
var hostileURIs = []string{
	"iii://a\x00b", "iii://\x01", "iii://fn/a\x1b[31m/b", "iii://a\x7f", "skill://x\x00/SKILL.md",
	"iii://bell\a", "iii://tab\vv", "iii://tag\U000E0001", "skill://\x1b",
}

// A read of a URI no template matches is the resource-not-found error,
// whose data is JSON holding the URI, and the session answers the next
// request: over stdio, where the SDK used to end the session (and skills
// mcp exited 1), and over Streamable HTTP, where every later request of
// the session got an empty 200.
func TestHostileURIsKeepTheSession(t *testing.T) {
	r := newRig(t)
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			c := r.dial(t, transport)
			for _, uri := range hostileURIs {
				_, err := c.call("resources/read", map[string]any{"uri": uri})
				var je *jsonrpc.Error
				if !errors.As(err, &je) || je.Code != mcp.CodeResourceNotFound || je.Message != "Resource not found" {
					t.Errorf("read %q: %v, want the SDK's resource-not-found error", uri, err)
				} else {
					var data struct{ URI string }
					if json.Unmarshal(je.Data, &data) != nil || data.URI != uri {
						t.Errorf("read %q: data %s, want the URI", uri, je.Data)
					}
				}
				if _, err := c.call("ping", map[string]any{}); err != nil {
					t.Fatalf("ping after reading %q: %v", uri, err)
				}
			}
		})
	}
}

// Every method the server answers, driven with the seeds of
// FuzzMCPSessionSurvives, keeps the session, over stdio and over
// Streamable HTTP.
func TestEveryMethodKeepsTheSession(t *testing.T) {
	r := newRig(t)
	fuzzFixtures(t, r)
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			c := r.dial(t, transport)
			for _, in := range sessionSeeds {
				exercise(t, c, in)
			}
		})
	}
}

// sessionInput is what FuzzMCPSessionSurvives varies: a URI, a name, a
// value and JSON arguments (used as they are when they are JSON, else as
// a string).
type sessionInput struct {
	uri, name, value string
	args             []byte
}

// sessionSeeds are the fuzz target's seeds: the control characters of
// hostileURIs in every field, sections, and arguments of the wrong shape.
var sessionSeeds = func() []sessionInput {
	seeds := []sessionInput{
		{"iii://alpha", "fuzz", "topic", []byte(`{"uri":"iii://alpha"}`)},
		{"iii://fn/docs/status", "topic", "a\x00b", []byte(`{"uris":["iii://fn/admin/wipe-all","iii://fn/docs/status"]}`)},
		{"skill://alpha/SKILL.md", "skill__fetch", "", []byte(`[1,2,3]`)},
		{"", "", "", nil},
		{"https://example.com/\x00", "acme__greet", "\x1b", []byte(`{"who":"\u0000"}`)},
		{"iii://skills", "no-such", "\x7f", []byte(`{"query":1e400}`)},
		{"skill://a/../b", "fuzz", "eyJyIjoiXHUwMDAwIn0", []byte(`"not an object"`)},
		{"iii://fn", "\x01", "\U000E0001", []byte(`{"uri":"iii://fn/a\u001bb"}`)},
	}
	for _, u := range hostileURIs {
		seeds = append(seeds, sessionInput{u, "fuzz\x00", u, []byte(fmt.Sprintf(`{"uri":%q}`, u))})
	}
	return seeds
}()

// exercise sends in through every method the server answers, in params
// of the right shape and of any shape, and checks after each request
// that the session still answers a ping.
func exercise(t *testing.T, c *rawClient, in sessionInput) {
	t.Helper()
	var args any = in.args // arbitrary JSON, as it is
	if !json.Valid(in.args) {
		args = string(in.args)
	}
	ref := map[string]any{"type": "ref/prompt", "name": in.name}
	for _, req := range []struct {
		method string
		params any
	}{
		{"resources/read", map[string]any{"uri": in.uri}},
		{"resources/read", args},
		{"resources/subscribe", map[string]any{"uri": in.uri}},
		{"resources/unsubscribe", map[string]any{"uri": in.uri}},
		{"resources/list", map[string]any{"cursor": in.value}},
		{"resources/templates/list", map[string]any{"cursor": in.value}},
		{"prompts/list", map[string]any{"cursor": in.value}},
		{"prompts/get", map[string]any{"name": in.name, "arguments": map[string]string{in.name: in.value}}},
		{"prompts/get", map[string]any{"name": "fuzz", "arguments": map[string]any{"topic": in.value, in.name: args}}},
		{"prompts/get", args},
		{"tools/list", map[string]any{"cursor": in.value}},
		{"tools/call", map[string]any{"name": "skill__fetch", "arguments": map[string]any{"uri": in.uri}}},
		{"tools/call", map[string]any{"name": "skill__fetch", "arguments": map[string]any{"uris": []string{in.uri, in.value}}}},
		{"tools/call", map[string]any{"name": "skill__fetch", "arguments": args}},
		{"tools/call", map[string]any{"name": "skill__search", "arguments": map[string]any{"query": in.value}}},
		{"tools/call", map[string]any{"name": "skill__search", "arguments": args}},
		{"tools/call", map[string]any{"name": "acme__greet", "arguments": args}},
		{"tools/call", map[string]any{"name": in.name, "arguments": args}},
		{"tools/call", args},
		{"completion/complete", map[string]any{"ref": ref, "argument": map[string]any{"name": in.value, "value": in.uri}}},
		{"completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "fuzz"}, "argument": map[string]any{"name": "topic", "value": in.value}}},
		{"completion/complete", map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": iiiTemplate.URITemplate}, "argument": map[string]any{"name": "path", "value": in.value}}},
		{"completion/complete", map[string]any{"ref": map[string]any{"type": in.name, "uri": in.uri}, "argument": map[string]any{"name": in.value, "value": in.value}}},
		{"completion/complete", args},
		{MethodSkillsList, map[string]any{"cursor": in.value}},
		{MethodSkillsGet, map[string]any{"uri": in.uri}},
		{MethodSkillsGet, args},
		{MethodDirRead, map[string]any{"uri": in.uri, "cursor": in.value}},
		{"logging/setLevel", map[string]any{"level": in.value}},
	} {
		_, _ = c.call(req.method, req.params) // any answer will do, an error too
		if _, err := c.call("ping", map[string]any{}); err != nil {
			t.Fatalf("ping after %s of %q: %v", req.method, req.params, err)
		}
	}
}

// fuzzFixtures registers what the inputs reach: a skill, a prompt with
// an argument and a handler that echoes it, and an exposed section.
func fuzzFixtures(tb testing.TB, r *rig) {
	tb.Helper()
	r.caller.RegisterFunction(iii.Function{ID: "fuzz::prompt", Handler: func(_ context.Context, req iii.Request) (any, error) {
		return map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": string(req.Data)}}}}, nil
	}})
	r.caller.RegisterFunction(iii.Function{ID: "docs::status", Metadata: json.RawMessage(`{"mcp.expose": true}`),
		Handler: func(context.Context, iii.Request) (any, error) { return "# Status", nil }})
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	for _, id := range []string{"fuzz::prompt", "docs::status"} {
		if err := r.srv.WaitFunction(ctx, id); err != nil {
			tb.Fatal(err)
		}
	}
	r.call(tb, "skills::register", map[string]string{"id": "alpha", "skill": "# Alpha\n\nThe first skill."})
	r.call(tb, "prompts::register", map[string]any{"name": "fuzz", "description": "Echoes", "function_id": "fuzz::prompt",
		"arguments": []map[string]any{{"name": "topic", "values": []string{"a", "b\x00"}}}})
}

// rawClient sends requests of any method with any params on one
// connection of the SDK's client transports, and reads the answers: a
// session whose server has stopped answering fails the test, it does not
// hang it.
type rawClient struct {
	t    *testing.T
	conn mcp.Connection
	next int64
}

// dial is a new initialized session with the rig's bridge over
// transport: "stdio" through Stdio over pipes, as a process's stdin and
// stdout, or "http" through the SDK's Streamable HTTP handler on an
// httptest server. Both close with the test.
func (r *rig) dial(t *testing.T, transport string) *rawClient {
	t.Helper()
	var client mcp.Transport
	switch transport {
	case "stdio":
		toServer, fromClient := io.Pipe()
		toClient, fromServer := io.Pipe()
		ss, err := r.bridge.Server().Connect(context.Background(), Stdio(toServer, fromServer), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { fromClient.Close(); toClient.Close(); ss.Close() })
		client = &mcp.IOTransport{Reader: toClient, Writer: fromClient}
	case "http":
		server := r.bridge.Server()
		ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
		t.Cleanup(ts.Close)
		client = &mcp.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1}
	default:
		t.Fatalf("no transport %q", transport)
	}
	conn, err := client.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	c := &rawClient{t: t, conn: conn}
	if _, err := c.call("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "raw", "version": "1"}}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if err := conn.Write(ctx, &jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	return c
}

// call sends one request and returns its result, or its error (the
// server's, a *jsonrpc.Error). A session that ends, or gives no answer
// within waitTimeout, fails the test.
func (c *rawClient) call(method string, params any) (json.RawMessage, error) {
	c.t.Helper()
	raw, err := json.Marshal(params)
	if err != nil {
		c.t.Fatalf("params of %s: %v", method, err)
	}
	c.next++
	id, _ := jsonrpc.MakeID(float64(c.next))
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if err := c.conn.Write(ctx, &jsonrpc.Request{ID: id, Method: method, Params: raw}); err != nil {
		c.t.Fatalf("%s: the session has ended: %v", method, err)
	}
	for {
		msg, err := c.conn.Read(ctx)
		if err != nil {
			c.t.Fatalf("%s: no answer, the session has ended: %v", method, err)
		}
		if res, ok := msg.(*jsonrpc.Response); ok && res.ID == id {
			if res.Error != nil {
				return nil, res.Error
			}
			return res.Result, nil
		}
	}
}
