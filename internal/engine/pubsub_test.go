package engine

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/iii-hq/skills-go/internal/iii/wire"
	"github.com/iii-hq/skills-go/internal/redistest"
)

// pubsubEngine starts an engine whose pubsub worker uses adapter ("local"
// or a Redis URL).
func pubsubEngine(t *testing.T, adapter string) *Engine {
	t.Helper()
	return newTestServerWith(t, Options{PubSub: adapter, Logger: zaptest.NewLogger(t, zaptest.Level(zap.ErrorLevel))})
}

// subscribe binds fn, registered on p, to topic.
func subscribe(p *peer, id, fn, topic string) {
	p.t.Helper()
	p.register(fn)
	p.send(wire.RegisterTrigger{ID: id, TriggerType: triggerSubscribe, FunctionID: fn,
		Config: json.RawMessage(`{"topic":` + string(mustEncode(topic)) + `}`)})
	p.barrier()
}

// sendVoidPublish sends a void publish: nobody waits for it.
func sendVoidPublish(p *peer, data string) {
	p.t.Helper()
	p.send(wire.InvokeFunction{FunctionID: "publish", Data: json.RawMessage(data), Action: &wire.Action{Type: wire.ActionVoid}})
}

// waitSubscribers waits until Redis has n subscribers of topic's channel:
// a subscription reaches Redis after the binding.
func waitSubscribers(t *testing.T, rc *redis.Client, topic string, n int64) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		got, err := rc.PubSubNumSub(context.Background(), topic).Result()
		if err == nil && got[topic] == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Redis has %v subscribers of %q (err %v) after %s, want %d", got, topic, err, waitTimeout, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The local adapter calls every binding of the topic with the data as it
// was published (no envelope), and no binding of another topic.
func TestPubSubLocalDeliversToEveryBindingOfTheTopic(t *testing.T) {
	s := pubsubEngine(t, PubSubLocal)
	subA, subB, other, publisher := dial(t, s), dial(t, s), dial(t, s), dial(t, s)
	subscribe(subA, "a", "sub::a", "orders.shipped")
	subscribe(subB, "b", "sub::b", "orders.shipped")
	subscribe(other, "o", "sub::other", "orders.placed")

	if res := publisher.callOK("publish", `{"topic":"orders.shipped","data":{"id":"abc","n":1}}`); len(res) != 0 && string(res) != "null" {
		t.Errorf("publish answered %s, want nothing (null)", res)
	}
	for _, p := range []struct {
		p  *peer
		fn string
	}{{subA, "sub::a"}, {subB, "sub::b"}} {
		if got := nextEvent(p.p, p.fn); got != `{"id":"abc","n":1}` {
			t.Errorf("%s heard %s, want the data as published", p.fn, got)
		}
	}
	// The other topic's binding hears only its own topic: its first
	// delivery is the publish to it, not the earlier one.
	publisher.callOK("publish", `{"topic":"orders.placed","data":2}`)
	if got := nextEvent(other, "sub::other"); got != `2` {
		t.Errorf("a binding of orders.placed heard %s first, want only its topic's 2", got)
	}
	// An unbound topic is no error: nobody hears it.
	publisher.callOK("publish", `{"topic":"nobody","data":null}`)
	// A void publish is delivered alike.
	sendVoidPublish(publisher, `{"topic":"orders.placed","data":"void"}`)
	if got := nextEvent(other, "sub::other"); got != `"void"` {
		t.Errorf("a void publish reached the binding as %s, want \"void\"", got)
	}
}

// Bad input to publish is refused as iii refuses it, and an engine
// without a pubsub worker has no publish.
func TestPublishBadInput(t *testing.T) {
	s := pubsubEngine(t, PubSubLocal)
	p := dial(t, s)
	for _, tc := range []struct{ data, code, says string }{
		{`{"topic":"","data":1}`, codeTopicNotSet, "Topic is not set"},
		{`{"topic":7,"data":1}`, "deserialization_error", "invalid type: integer `7`, expected a string"},
		{`{"data":1}`, "deserialization_error", "missing field `topic`"},
		{`{"topic":"t"}`, "deserialization_error", "missing field `data`"},
		{`"t"`, "deserialization_error", "expected struct PubSubInput"},
	} {
		res := p.call("publish", tc.data)
		if res.Error == nil || res.Error.Code != tc.code || !strings.Contains(res.Error.Message, tc.says) {
			t.Errorf("publish(%s) = %+v, want %s saying %q", tc.data, res.Error, tc.code, tc.says)
		}
	}
	plain := dial(t, newTestServer(t))
	if res := plain.call("publish", `{"topic":"t","data":1}`); res.Error == nil || res.Error.Code != "function_not_found" {
		t.Errorf("publish on an engine without pubsub = %+v, want function_not_found", res.Error)
	}
}

// A subscribe binding needs a topic, a string that is not empty; any
// other config is refused, naming what was given (iii accepts it and
// logs a warning, and the binding never fires: D75).
func TestSubscribeBindingNeedsATopic(t *testing.T) {
	s := pubsubEngine(t, PubSubLocal)
	p := dial(t, s)
	p.register("sub::f")
	for _, cfg := range []string{``, `null`, `{}`, `{"topic":""}`, `{"topic":7}`, `"orders"`} {
		p.send(wire.RegisterTrigger{ID: "bad", TriggerType: triggerSubscribe, FunctionID: "sub::f", Config: json.RawMessage(cfg)})
		res := expect[wire.TriggerRegistrationResult](p)
		want := "no config"
		if cfg != "" && cfg != "null" {
			want = cfg
		}
		if res.Error == nil || res.Error.Code != codeTriggerRegistration ||
			!strings.Contains(res.Error.Message, "needs a topic") || !strings.Contains(res.Error.Message, want) {
			t.Errorf("subscribe with config %q = %+v, want %s naming %q", cfg, res.Error, codeTriggerRegistration, want)
		}
	}
	// Nothing was bound: a publish reaches nobody, and the next frame p
	// gets is the pong.
	p.callOK("publish", `{"topic":"orders","data":1}`)
	p.barrier()
}

// A value of Options.PubSub that is neither local nor a Redis URL stops
// Start, naming the value and what is allowed.
func TestPubSubOptionIsCheckedAtStart(t *testing.T) {
	for _, bad := range []string{"redis", "Local", "http://127.0.0.1:6379", "redis://:pw@127.0.0.1:99999"} {
		_, err := Start(context.Background(), "127.0.0.1:0", Options{PubSub: bad})
		var pe *PubSubError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), `"local" or redis://`) {
			t.Errorf("Start with PubSub %q = %v, want a PubSubError naming the allowed forms", bad, err)
		}
		if err != nil && strings.Contains(err.Error(), "pw") {
			t.Errorf("the error shows the password: %v", err)
		}
	}
}

// Two engines on one Redis deliver each other's publishes, and their
// own, to each of their bindings of the topic.
func TestPubSubAcrossTwoEnginesOnOneRedis(t *testing.T) {
	srv := redistest.NewServer(t, redistest.Options{})
	a, b := pubsubEngine(t, srv.URL), pubsubEngine(t, srv.URL)
	subA, subB := dial(t, a), dial(t, b)
	subscribe(subA, "a", "sub::a", "skills::changes")
	subscribe(subB, "b", "sub::b", "skills::changes")
	waitSubscribers(t, redisClient(t, srv), "skills::changes", 2)

	dial(t, a).callOK("publish", `{"topic":"skills::changes","data":{"key":"k","scope":"skills"}}`)
	for _, sub := range []struct {
		p  *peer
		fn string
	}{{subA, "sub::a"}, {subB, "sub::b"}} {
		if got := nextEvent(sub.p, sub.fn); got != `{"key":"k","scope":"skills"}` {
			t.Errorf("%s heard %s for engine A's publish", sub.fn, got)
		}
	}
	dial(t, b).callOK("publish", `{"topic":"skills::changes","data":[1,"two"]}`)
	for _, sub := range []struct {
		p  *peer
		fn string
	}{{subA, "sub::a"}, {subB, "sub::b"}} {
		if got := nextEvent(sub.p, sub.fn); got != `[1,"two"]` {
			t.Errorf("%s heard %s for engine B's publish", sub.fn, got)
		}
	}
	// A void publish goes through Redis too, in order, without holding
	// up its caller.
	sendVoidPublish(dial(t, a), `{"topic":"skills::changes","data":"void-1"}`)
	for _, sub := range []struct {
		p  *peer
		fn string
	}{{subA, "sub::a"}, {subB, "sub::b"}} {
		if got := nextEvent(sub.p, sub.fn); got != `"void-1"` {
			t.Errorf("%s heard %s for engine A's void publish", sub.fn, got)
		}
	}
	// A message another program publishes that is not JSON is dropped;
	// the next one is delivered.
	rc := redisClient(t, srv)
	rc.Publish(context.Background(), "skills::changes", "not json")
	rc.Publish(context.Background(), "skills::changes", `{"b":1,"a":2}`)
	for _, sub := range []struct {
		p  *peer
		fn string
	}{{subA, "sub::a"}, {subB, "sub::b"}} {
		if got := nextEvent(sub.p, sub.fn); got != `{"a":2,"b":1}` {
			t.Errorf("after a message that is not JSON, %s heard %s, want the next one in canonical form", sub.fn, got)
		}
	}
	// A binding that goes takes its subscription with it.
	subB.send(wire.UnregisterTrigger{ID: "b"})
	subB.barrier()
	subA.send(wire.UnregisterTrigger{ID: "a"})
	subA.barrier()
	waitSubscribers(t, rc, "skills::changes", 0)
}

// Redis lost mid-run: a publish fails naming the server (password
// hidden) and the cause; once Redis is back on its port the engine's
// subscription is made again without a restart, and publishes arrive.
func TestPubSubRedisDownThenBack(t *testing.T) {
	srv := redistest.NewServer(t, redistest.Options{})
	url := strings.Replace(srv.URL, "redis://", "redis://:hunter2@", 1) // a password Redis does not ask for
	s := pubsubEngine(t, url)
	sub, publisher := dial(t, s), dial(t, s)
	subscribe(sub, "s", "sub::s", "t")
	rc := redisClient(t, srv)
	waitSubscribers(t, rc, "t", 1)

	srv.Stop()
	res := publisher.call("publish", `{"topic":"t","data":1}`)
	if res.Error == nil || res.Error.Code != codePublishFailed ||
		!strings.Contains(res.Error.Message, "127.0.0.1") || !strings.Contains(res.Error.Message, "connection refused") ||
		strings.Contains(res.Error.Message, "hunter2") {
		t.Fatalf("publish with Redis down = %+v, want %s naming the server without its password and the cause", res.Error, codePublishFailed)
	}

	// A void publish then is dropped, and the connection goes on serving.
	sendVoidPublish(publisher, `{"topic":"t","data":"lost"}`)
	publisher.barrier()

	srv.Start()
	waitSubscribers(t, rc, "t", 1)
	publisher.callOK("publish", `{"topic":"t","data":2}`)
	if got := nextEvent(sub, "sub::s"); got != `2` {
		t.Errorf("after Redis came back the binding heard %s, want 2", got)
	}
}

// Close leaves nothing of the Redis adapter running.
func TestPubSubRedisCloseLeavesNoGoroutine(t *testing.T) {
	srv := redistest.NewServer(t, redistest.Options{})
	rc := redisClient(t, srv)
	waitSubscribers(t, rc, "t", 0) // its connection made, before the count
	before := runtime.NumGoroutine()
	s, err := Start(context.Background(), "127.0.0.1:0", Options{PubSub: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	sub, publisher := dial(t, s), dial(t, s)
	subscribe(sub, "s", "sub::s", "t")
	waitSubscribers(t, rc, "t", 1)
	publisher.callOK("publish", `{"topic":"t","data":1}`)
	_ = nextEvent(sub, "sub::s")
	s.Close()
	sub.drainUntilClosed()
	publisher.drainUntilClosed()
	waitGoroutinesBack(t, before)
}
