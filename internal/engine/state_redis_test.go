package engine

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/iii-hq/skills-go/internal/redistest"
)

// redisEngine starts an engine whose state is at url.
func redisEngine(t *testing.T, url string) *Engine {
	t.Helper()
	return newTestServerWith(t, Options{StateURL: url, Logger: zaptest.NewLogger(t, zaptest.Level(zap.ErrorLevel))})
}

// redisClient is a plain client of srv, as another program sharing the
// Redis would be.
func redisClient(t *testing.T, srv *redistest.Server) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: srv.Addr})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// The layout is iii's Redis adapter's: a hash state:<scope>, a field per
// key, the value as JSON text; a value another program wrote is read in
// the engine's canonical form, and one that is not JSON is an error
// naming the field, never a crash.
func TestRedisStateLayoutIsIiis(t *testing.T) {
	srv := redistest.NewServer(t, redistest.Options{})
	s := redisEngine(t, srv.URL)
	p := dial(t, s)
	rc := redisClient(t, srv)
	ctx := context.Background()

	p.callOK("state::set", `{"scope":"skills","key":"pdf","value":{"b":1,"a":"x"}}`)
	got, err := rc.HGetAll(ctx, "state:skills").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got["pdf"] != `{"a":"x","b":1}` {
		t.Errorf("hash state:skills = %v, want pdf → {\"a\":\"x\",\"b\":1}", got)
	}

	if err := rc.HSet(ctx, "state:skills", "other", `{ "z": 1, "y": [ 2 ] }`).Err(); err != nil {
		t.Fatal(err)
	}
	if v := string(p.callOK("state::get", `{"scope":"skills","key":"other"}`)); v != `{"y":[2],"z":1}` {
		t.Errorf("a value another program wrote reads %s, want it canonical", v)
	}
	if v := string(p.callOK("state::list_groups", `{}`)); v != `{"groups":["skills"]}` {
		t.Errorf("list_groups = %s", v)
	}

	if err := rc.HSet(ctx, "state:skills", "broken", `not json`).Err(); err != nil {
		t.Fatal(err)
	}
	for fn, code := range map[string]string{"state::get": "GET_ERROR", "state::list": "LIST_ERROR"} {
		res := p.call(fn, `{"scope":"skills","key":"broken"}`)
		if res.Error == nil || res.Error.Code != code ||
			!strings.Contains(res.Error.Message, `"broken"`) || !strings.Contains(res.Error.Message, srv.URL) {
			t.Errorf("%s of a field that is not JSON = %+v, want %s naming the field and the URL", fn, res.Error, code)
		}
	}
	// The write path is unaffected: the field can be overwritten.
	p.callOK("state::set", `{"scope":"skills","key":"broken","value":1}`)
}

// requireStateError checks that fn failed with code, naming the URL and
// the cause.
func requireStateError(t *testing.T, p *peer, fn, data, code, url, cause string) {
	t.Helper()
	res := p.call(fn, data)
	if res.Error == nil {
		t.Fatalf("%s(%s) succeeded with Redis down: %s", fn, data, res.Result)
	}
	if res.Error.Code != code || !strings.Contains(res.Error.Message, url) || !strings.Contains(res.Error.Message, cause) {
		t.Errorf("%s(%s) error = %+v, want %s naming %s and %q", fn, data, res.Error, code, url, cause)
	}
}

// Redis lost mid-run: every state call fails naming the URL and the cause,
// nothing acknowledged is lost, and once Redis is back on the same port
// the same engine serves again, on the same connection.
func TestRedisStateOutageFailsThenRecovers(t *testing.T) {
	srv := redistest.NewServer(t, redistest.Options{AppendOnly: true})
	s := redisEngine(t, srv.URL)
	p := dial(t, s)
	p.callOK("state::set", `{"scope":"s","key":"before","value":1}`)

	srv.Stop()
	const refused = "connection refused"
	requireStateError(t, p, "state::set", `{"scope":"s","key":"during","value":2}`, "SET_ERROR", srv.URL, refused)
	requireStateError(t, p, "state::delete", `{"scope":"s","key":"before"}`, "DELETE_ERROR", srv.URL, refused)
	requireStateError(t, p, "state::get", `{"scope":"s","key":"before"}`, "GET_ERROR", srv.URL, refused)
	requireStateError(t, p, "state::list", `{"scope":"s"}`, "LIST_ERROR", srv.URL, refused)
	requireStateError(t, p, "state::list_groups", `{}`, "LIST_GROUPS_ERROR", srv.URL, refused)
	if err := s.SetState("s", "seeded", []byte(`3`)); err == nil || !strings.Contains(err.Error(), srv.URL) {
		t.Errorf("SetState with Redis down = %v, want an error naming %s", err, srv.URL)
	}

	srv.Start()
	if v := string(p.callOK("state::get", `{"scope":"s","key":"before"}`)); v != `1` {
		t.Errorf("the write acknowledged before the outage reads %s, want 1", v)
	}
	p.callOK("state::set", `{"scope":"s","key":"after","value":4}`)
	if v := string(p.callOK("state::list", `{"scope":"s"}`)); v != `[1,4]` {
		t.Errorf("after the outage state::list = %s, want [1,4] (nothing refused was applied)", v)
	}
}

// An engine may start while its Redis is down: it serves, state calls
// fail, and they succeed once Redis comes up.
func TestRedisUnreachableAtStartRecovers(t *testing.T) {
	srv := redistest.NewServer(t, redistest.Options{})
	srv.Stop()
	s := redisEngine(t, srv.URL)
	p := dial(t, s)
	requireStateError(t, p, "state::get", `{"scope":"s","key":"k"}`, "GET_ERROR", srv.URL, "connection refused")
	srv.Start()
	p.callOK("state::set", `{"scope":"s","key":"k","value":1}`)
	if v := string(p.callOK("state::get", `{"scope":"s","key":"k"}`)); v != `1` {
		t.Errorf("state::get = %s, want 1", v)
	}
}

// A password in the URL never shows in an error.
func TestRedisErrorsHideThePassword(t *testing.T) {
	srv := redistest.NewServer(t, redistest.Options{})
	srv.Stop()
	s := redisEngine(t, "redis://user:s3cret@"+srv.Addr+"/0")
	p := dial(t, s)
	res := p.call("state::set", `{"scope":"s","key":"k","value":1}`)
	t.Logf("the error: %+v", res.Error)
	if res.Error == nil || strings.Contains(res.Error.Message, "s3cret") || !strings.Contains(res.Error.Message, "redis://user:xxxxx@"+srv.Addr) {
		t.Errorf("error = %+v, want the URL with its password hidden", res.Error)
	}
}

// A value that is not a Redis URL stops Start, naming the value and the
// form allowed; so does asking for Redis and a data directory at once.
func TestStateURLIsCheckedAtStart(t *testing.T) {
	for _, bad := range []string{
		"localhost:6379", "http://127.0.0.1:6379", "redis://", "redis://127.0.0.1:notaport",
		"redis://127.0.0.1:6379/x", "redis://127.0.0.1:6379/-1", "redis://127.0.0.1:6379/0?x=1", "redis://127.0.0.1:99999",
	} {
		_, err := Start(context.Background(), "127.0.0.1:0", Options{StateURL: bad})
		var ue *StateURLError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "redis://host:port[/db]") {
			t.Errorf("Start with StateURL %q = %v, want a StateURLError naming it and the form", bad, err)
		}
	}
	_, err := Start(context.Background(), "127.0.0.1:0", Options{StateURL: "redis://127.0.0.1:6379", DataDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "choose one") {
		t.Errorf("Start with StateURL and DataDir = %v, want a refusal", err)
	}
	for _, good := range []string{"redis://127.0.0.1:6379", "redis://127.0.0.1:6379/3", "redis://:pw@localhost/0", "redis://h"} {
		if err := CheckStateURL(good); err != nil {
			t.Errorf("CheckStateURL(%q) = %v", good, err)
		}
	}
}

// Two engines on one Redis share the data, and each fires the state
// trigger only for its own writes, as iii's engines do (D71).
func TestTwoEnginesOnOneRedisShareDataNotEvents(t *testing.T) {
	srv := redistest.NewServer(t, redistest.Options{})
	a, b := redisEngine(t, srv.URL), redisEngine(t, srv.URL)
	subA, subB := dial(t, a), dial(t, b)
	bindState(subA, "st", "sub::changes", `{"scope":"skills"}`)
	bindState(subB, "st", "sub::changes", `{"scope":"skills"}`)
	writerA, writerB := dial(t, a), dial(t, b)

	writerA.callOK("state::set", `{"scope":"skills","key":"from-a","value":1}`)
	if v := string(writerB.callOK("state::get", `{"scope":"skills","key":"from-a"}`)); v != `1` {
		t.Errorf("engine B reads %s for engine A's write, want 1", v)
	}
	writerB.callOK("state::set", `{"scope":"skills","key":"from-b","value":2}`)
	if v := string(writerA.callOK("state::list", `{"scope":"skills"}`)); v != `[1,2]` {
		t.Errorf("engine A lists %s, want [1,2]", v)
	}

	wantA := `{"type":"state","event_type":"state:created","scope":"skills","key":"from-a","old_value":null,"new_value":1}`
	wantB := `{"type":"state","event_type":"state:created","scope":"skills","key":"from-b","old_value":null,"new_value":2}`
	if got := nextEvent(subA, "sub::changes"); got != wantA {
		t.Errorf("engine A's subscriber heard %s, want %s", got, wantA)
	}
	// B's first event is B's own write: A's write, made before it, fired
	// nothing on B (events of one engine are delivered in order).
	if got := nextEvent(subB, "sub::changes"); got != wantB {
		t.Errorf("engine B's subscriber heard %s first, want only its own write %s", got, wantB)
	}
	// Likewise A's next event is A's next write, not B's.
	writerA.callOK("state::delete", `{"scope":"skills","key":"from-b"}`)
	wantA2 := `{"type":"state","event_type":"state:deleted","scope":"skills","key":"from-b","old_value":2,"new_value":null}`
	if got := nextEvent(subA, "sub::changes"); got != wantA2 {
		t.Errorf("engine A's subscriber heard %s next, want only its own write %s", got, wantA2)
	}
}

// Close leaves nothing of the Redis client running.
func TestRedisEngineCloseLeavesNoGoroutine(t *testing.T) {
	srv := redistest.NewServer(t, redistest.Options{}) // its reader goroutine counts in before
	before := runtime.NumGoroutine()
	s, err := Start(context.Background(), "127.0.0.1:0", Options{StateURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	p := dial(t, s)
	p.callOK("state::set", `{"scope":"s","key":"k","value":1}`)
	p.callOK("state::list", `{"scope":"s"}`)
	s.Close()
	p.drainUntilClosed()
	waitGoroutinesBack(t, before)
}
