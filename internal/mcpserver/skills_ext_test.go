package mcpserver

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawSession is a client that writes raw lines to the bridge's stdio
// transport and reads its raw lines back: for the methods no SDK client
// can send, and for lines no SDK client would write.
type rawSession struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Reader
	next int64
}

func (r *rig) rawSession(t *testing.T) *rawSession {
	t.Helper()
	toServer, in := io.Pipe()
	outR, fromServer := io.Pipe()
	ss, err := r.bridge.Server().Connect(context.Background(), Stdio(toServer, fromServer), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); outR.Close(); ss.Close() })
	s := &rawSession{t: t, in: in, out: bufio.NewReader(outR)}
	if _, err := s.call("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "raw", "version": "1"}}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

// send writes one raw line.
func (s *rawSession) send(line string) {
	s.t.Helper()
	done := make(chan error, 1)
	go func() { _, err := io.WriteString(s.in, line+"\n"); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			s.t.Fatalf("write %.60q: %v", line, err)
		}
	case <-time.After(waitTimeout):
		s.t.Fatalf("write %.60q: the server did not read it", line)
	}
}

// response reads lines until the response whose id is id (raw JSON).
func (s *rawSession) response(id string) (json.RawMessage, *jsonrpc.Error) {
	s.t.Helper()
	type reply struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *jsonrpc.Error  `json:"error"`
	}
	got := make(chan reply, 1)
	go func() {
		for {
			line, err := s.out.ReadBytes('\n')
			if err != nil {
				close(got)
				return
			}
			var r reply
			if json.Unmarshal(line, &r) == nil && string(r.ID) == id {
				got <- r
				return
			}
		}
	}()
	select {
	case r, ok := <-got:
		if !ok {
			s.t.Fatalf("the server closed its output before answering id %s", id)
		}
		return r.Result, r.Error
	case <-time.After(waitTimeout):
		s.t.Fatalf("no response with id %s within %s", id, waitTimeout)
	}
	return nil, nil
}

// call sends one request and returns its result, or its error.
func (s *rawSession) call(method string, params any) (json.RawMessage, error) {
	s.t.Helper()
	s.next++
	p, _ := json.Marshal(params)
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, s.next, method, p))
	res, e := s.response(fmt.Sprint(s.next))
	if e != nil {
		return nil, e
	}
	return res, nil
}

type extSkill struct {
	URI         string         `json:"uri"`
	Frontmatter map[string]any `json:"frontmatter"`
	Resources   []struct {
		URI    string `json:"uri"`
		Digest string `json:"digest"`
		Size   int    `json:"size"`
	} `json:"resources"`
}

func digest(s string) string {
	h := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(h[:])
}

// The MCP Skills extension through the bridge: the capability, skills/list
// and skills/get with digests that match what resources/read returns,
// and the extension's error for an unknown skill.
func TestSkillsExtension(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	if caps := r.session.InitializeResult().Capabilities; caps.Extensions[ExtensionID] == nil || caps.Resources == nil || caps.Logging == nil {
		t.Fatalf("capabilities = %+v: want the extension, resources and logging", caps)
	}
	r.call(t, "skills::register", map[string]string{"id": "ops/release-notes", "skill": "# Release notes\n\nWrite the notes for a release: what changed, for whom.\n"})
	waitFor(t, r.listed, "resources")
	raw := r.rawSession(t)

	res, err := raw.call(MethodSkillsList, map[string]any{})
	if err != nil {
		t.Fatalf("skills/list: %v", err)
	}
	var list struct {
		ResultType string     `json:"resultType"`
		Skills     []extSkill `json:"skills"`
		TTLMs      *int       `json:"ttlMs"`
		CacheScope string     `json:"cacheScope"`
	}
	if err := json.Unmarshal(res, &list); err != nil || list.ResultType != "complete" || list.TTLMs == nil || list.CacheScope != "public" || len(list.Skills) != 1 {
		t.Fatalf("skills/list = %s (%v)", res, err)
	}
	s := list.Skills[0]
	if s.URI != "skill://ops/release-notes/SKILL.md" || s.Frontmatter["name"] != "release-notes" || s.Frontmatter["description"] != "Write the notes for a release: what changed, for whom." {
		t.Errorf("entry = %+v", s)
	}
	read, err := r.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: s.URI})
	if err != nil {
		t.Fatalf("resources/read %s: %v", s.URI, err)
	}
	text := read.Contents[0].Text
	if len(s.Resources) != 1 || s.Resources[0].URI != s.URI || s.Resources[0].Digest != digest(text) || s.Resources[0].Size != len(text) {
		t.Errorf("resources %+v do not describe the %d bytes read", s.Resources, len(text))
	}
	if !strings.HasPrefix(text, "---\nname: release-notes\n") || !strings.HasSuffix(text, "for whom.\n") {
		t.Errorf("SKILL.md = %q", text)
	}

	res, err = raw.call(MethodSkillsGet, map[string]any{"uri": s.URI})
	var got struct {
		ResultType string   `json:"resultType"`
		Skill      extSkill `json:"skill"`
	}
	if err != nil || json.Unmarshal(res, &got) != nil || got.ResultType != "complete" || got.Skill.Resources[0].Digest != s.Resources[0].Digest {
		t.Errorf("skills/get = %s, %v", res, err)
	}

	for _, c := range []struct {
		method string
		params any
		want   string
	}{
		{MethodSkillsGet, map[string]any{"uri": "skill://nope/SKILL.md"}, "Skill not found: nope"},
		{MethodSkillsGet, map[string]any{}, "params.uri is required"},
		{MethodSkillsGet, map[string]any{"uri": "iii://ops/release-notes"}, "is not a skill's SKILL.md URI"},
		{MethodSkillsGet, []int{1}, "params must be an object"},
		{MethodSkillsList, map[string]any{"cursor": "garbage"}, "not one this worker gave out"},
	} {
		_, err := raw.call(c.method, c.params)
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, c.want) {
			t.Errorf("%s %v: %v, want -32602 saying %q", c.method, c.params, err, c.want)
		}
	}
	_, err = r.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://ops/release-notes/other.md"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != mcp.CodeResourceNotFound {
		t.Errorf("read of an unknown skill file: %v, want the resource-not-found error", err)
	}
	// resources/directory/read, behind directoryRead.
	if ext, _ := r.session.InitializeResult().Capabilities.Extensions[ExtensionID].(map[string]any); ext["directoryRead"] != true {
		t.Errorf("extension settings = %v, want directoryRead", ext)
	}
	res, err = raw.call(MethodDirRead, map[string]any{"uri": "skill://ops/release-notes"})
	if err != nil || !strings.Contains(string(res), `"uri":"skill://ops/release-notes/SKILL.md"`) || !strings.Contains(string(res), `"resultType":"complete"`) {
		t.Errorf("resources/directory/read = %s, %v", res, err)
	}
	if _, err := raw.call(MethodDirRead, map[string]any{"uri": "skill://ops"}); err == nil {
		t.Error("a directory of no skill was read")
	} else if je, ok := err.(*jsonrpc.Error); !ok || je.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("a directory of no skill: %v, want -32602", err)
	}
	// The connection still serves the SDK's methods after the extension's.
	if _, err := raw.call("resources/list", map[string]any{}); err != nil {
		t.Errorf("resources/list after the extension's calls: %v", err)
	}
}

// skillsListed is what a client reads of a skills/list answer.
type skillsListed struct {
	mcp.ResultBase
	Skills []struct {
		URI string `json:"uri"`
	} `json:"skills"`
	ResultType string `json:"resultType"`
}

// Over Streamable HTTP the extension's methods are the SDK's like any
// other: a session of the official client calls them, an unknown skill
// is -32602, and a call outside a session is the SDK's to refuse.
func TestSkillsExtensionOverHTTP(t *testing.T) {
	r := newRig(t)
	r.call(t, "skills::register", map[string]string{"id": "alpha", "skill": "# Alpha\n\nThe first skill.\n"})
	waitFor(t, r.listed, "resources")
	server := r.bridge.Server()
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	defer ts.Close()

	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, nil)
	if err := mcp.AddSendingCustomMethod[*extParams, *skillsListed](client, MethodSkillsList); err != nil {
		t.Fatal(err)
	}
	if err := mcp.AddSendingCustomMethod[*extParams, *skillsListed](client, MethodSkillsGet); err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, ok := cs.InitializeResult().Capabilities.Extensions[ExtensionID]; !ok {
		t.Errorf("initialize over HTTP: capabilities %+v lack %s", cs.InitializeResult().Capabilities, ExtensionID)
	}
	listed, err := mcp.CallCustomMethod[*extParams, *skillsListed](ctx, cs, MethodSkillsList, &extParams{})
	if err != nil || len(listed.Skills) != 1 || listed.Skills[0].URI != "skill://alpha/SKILL.md" || listed.ResultType != "complete" {
		t.Errorf("skills/list over HTTP = %+v, %v; want skill://alpha/SKILL.md, complete", listed, err)
	}
	unknown := "skill://zzz/SKILL.md"
	_, err = mcp.CallCustomMethod[*extParams, *skillsListed](ctx, cs, MethodSkillsGet, &extParams{URI: &unknown})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("skills/get of an unknown skill over HTTP: %v, want -32602", err)
	}

	// Outside a session the SDK answers, as for its own methods.
	req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"skills/list","params":{}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", "no-such-session")
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK || strings.Contains(string(b), "skill://alpha") {
		t.Errorf("skills/list with a made-up session id = %d %s; want the SDK's refusal", resp.StatusCode, b)
	}
}

// A client's mistakes over stdio get the JSON-RPC error that names them,
// and the session goes on: no line a client writes ends it.
func TestStdioSurvivesBadLines(t *testing.T) {
	r := newRig(t)
	raw := r.rawSession(t)
	for _, c := range []struct {
		line, id string
		code     int64
		want     string
	}{
		{"not json at all", "null", jsonrpc.CodeParseError, "not one JSON value"},
		{`{"jsonrpc":"2.0","id":1}{"x":2}`, "null", jsonrpc.CodeParseError, "not one JSON value"},
		{`{"foo":1}`, "null", jsonrpc.CodeInvalidRequest, "invalid request"},
		{`{"jsonrpc":"1.0","id":70,"method":"ping"}`, "70", jsonrpc.CodeInvalidRequest, "invalid message version"},
		{`{"jsonrpc":"2.0","id":{},"method":"ping"}`, "null", jsonrpc.CodeInvalidRequest, "invalid request"},
		{`[{"jsonrpc":"2.0","id":71,"method":"ping"}]`, "null", jsonrpc.CodeInvalidRequest, "batches are not supported"},
		{`{"jsonrpc":"1.0","id":77,"result":{}}`, "null", jsonrpc.CodeInvalidRequest, "invalid message version"}, // a response: its id is not ours to name
		{`{"jsonrpc":"2.0","id":72,"method":"no/such"}`, "72", jsonrpc.CodeMethodNotFound, ""},
		{`{"jsonrpc":"2.0","id":73,"method":"skills/list","params":{"cursor":"garbage"}}`, "73", jsonrpc.CodeInvalidParams, "cursor"},
		{`{"jsonrpc":"2.0","id":"s74","method":"resources/read","params":{"uri":"skill://a//b"}}`, `"s74"`, jsonrpc.CodeInvalidParams, "has an empty, . or .. segment"},
		{`{"jsonrpc":"2.0","id":"s76","method":"resources/read","params":{"uri":"skill://a/../../b"}}`, `"s76"`, jsonrpc.CodeInvalidParams, "above the registry root"},
		{`{"jsonrpc":"2.0","id":75,"method":"ping"` + strings.Repeat(" ", MaxLineBytes) + `}`, "null", jsonrpc.CodeInvalidRequest, "over the limit of 16777216 bytes"},
	} {
		raw.send(c.line)
		_, e := raw.response(c.id)
		if e == nil || e.Code != c.code || !strings.Contains(e.Message, c.want) {
			t.Errorf("%.50q: %+v, want code %d saying %q", c.line, e, c.code, c.want)
		}
	}
	raw.send(`{"jsonrpc":"2.0","method":"skills/list"}`) // a notification: nothing to answer
	if res, err := raw.call("ping", map[string]any{}); err != nil || string(res) != "{}" {
		t.Errorf("ping after the bad lines = %s, %v", res, err)
	}
}

// A client that leaves with calls in flight ends its session cleanly: the
// session's goroutines stop and nothing waits on the gone client.
func TestStdioClientLeavesMidCall(t *testing.T) {
	r := newRig(t)
	r.call(t, "skills::register", map[string]string{"id": "alpha", "skill": "# Alpha"})
	toServer, in := io.Pipe()
	outR, fromServer := io.Pipe()
	go func() { _, _ = io.Copy(io.Discard, outR) }() // the client's output, unread
	ss, err := r.bridge.Server().Connect(context.Background(), Stdio(toServer, fromServer), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"skills/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"iii://alpha"}}`,
	} {
		if _, err := io.WriteString(in, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	in.Close() // the client is gone, its calls still in flight
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case <-done:
	case <-time.After(waitTimeout):
		t.Fatal("the session did not end after its client left")
	}
	outR.Close()
}

// fakeCaller answers every call with a fixed result.
type fakeCaller struct{ result string }

func (f fakeCaller) Call(context.Context, string, any) (json.RawMessage, error) {
	return json.RawMessage(f.result), nil
}

// Whatever answers the registry's function, the bridge neither crashes on
// a null result nor rounds a frontmatter's numbers through a float64.
func TestExtensionPassesResultsThrough(t *testing.T) {
	b := New(fakeCaller{"null"}, "test", nil)
	if _, err := b.extension(context.Background(), MethodSkillsList, extParams{}); err == nil {
		t.Error("a null result was passed on")
	}
	b = New(fakeCaller{`{"skills":[{"uri":"skill://n/SKILL.md","frontmatter":{"name":"n","big":9007199254740993,"u":18446744073709551615},"resources":[]}]}`}, "test", nil)
	out, err := b.extension(context.Background(), MethodSkillsList, extParams{})
	if err != nil || !strings.Contains(string(out), `"big":9007199254740993`) || !strings.Contains(string(out), `"u":18446744073709551615`) || !strings.Contains(string(out), `"resultType":"complete"`) {
		t.Errorf("skills/list = %s, %v", out, err)
	}
}

// A client may subscribe to a skill:// file as to any resource it can
// read, and gets resources/updated for a skill's SKILL.md when its body
// changes.
func TestSubscribeToSkillFiles(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	r.call(t, "skills::register", map[string]string{"id": "alpha", "skill": "# Alpha\n\nFirst."})
	waitFor(t, r.listed, "resources")
	if err := r.session.Subscribe(ctx, &mcp.SubscribeParams{URI: "skill://alpha/SKILL.md"}); err != nil {
		t.Fatalf("subscribe to a skill's SKILL.md: %v", err)
	}
	if err := r.session.Subscribe(ctx, &mcp.SubscribeParams{URI: "skill://nope/SKILL.md"}); err == nil {
		t.Error("a subscription to an unknown skill file was accepted")
	}
	r.call(t, "skills::register", map[string]string{"id": "alpha", "skill": "# Alpha\n\nSecond, longer."})
	waitFor(t, r.updated, "skill://alpha/SKILL.md")
}
