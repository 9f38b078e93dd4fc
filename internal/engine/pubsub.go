package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// The pubsub worker (docs/engine.md#pubsub, docs/decisions.md D75), as iii
// has it in engine/src/workers/pubsub/ (a separate worker from 0.24 on,
// `iii worker add iii-pubsub`): the function `publish`, taking
// {topic, data}, and the trigger type `subscribe`, bound with {topic};
// every binding of a topic is called with the published data as its
// input, no envelope, in the binding's namespace, its result discarded.
// The local adapter delivers to this engine's bindings; the Redis adapter
// (pubsub_redis.go) PUBLISHes the data's JSON text on the channel named by
// the topic and delivers what arrives on the channels its bindings name,
// so engines sharing one Redis hear each other's publishes.

const (
	pubsubWorkerName        = "iii-pubsub"
	pubsubPublish           = "publish"
	triggerSubscribe        = "subscribe"
	triggerSubscribeDesc    = "Subscribe to a topic"
	pubsubPublishDesc       = "Publishes an event"
	codeTopicNotSet         = "topic_not_set"
	codePublishFailed       = "publish_failed"
	codeTriggerRegistration = "trigger_registration_failed"
)

// PubSubLocal is Options.PubSub for the in-process adapter.
const PubSubLocal = "local"

// pubsubForm is what Options.PubSub takes, for error messages.
const pubsubForm = `"local" or ` + redisURLForm

var publishInput = &inputStruct{name: "PubSubInput", fields: []field{
	{name: "topic"}, {name: "data", kind: kindAny},
}}

// PubSubError is an Options.PubSub value the engine cannot use.
type PubSubError struct{ Value, Why string }

func (e *PubSubError) Error() string {
	return fmt.Sprintf("pubsub %q is not one the engine can use (%s); give %s, such as redis://127.0.0.1:6379", redactURL(e.Value), e.Why, pubsubForm)
}

// CheckPubSub reports whether raw is a value Options.PubSub takes: "",
// "local", or a Redis URL as Options.StateURL takes it.
func CheckPubSub(raw string) error {
	if raw == "" || raw == PubSubLocal {
		return nil
	}
	if !strings.Contains(raw, "://") {
		return &PubSubError{Value: raw, Why: "it is neither local nor a URL"}
	}
	if _, err := parseStateURL(raw); err != nil {
		if ue, ok := err.(*StateURLError); ok {
			return &PubSubError{Value: raw, Why: ue.Why}
		}
		return &PubSubError{Value: raw, Why: err.Error()}
	}
	return nil
}

// pubsubBuiltins is the pubsub worker's one function.
func pubsubBuiltins() []builtinSpec {
	return []builtinSpec{{pubsubWorkerName, pubsubPublish, pubsubPublishDesc, publish}}
}

// installPubSubLocked installs the pubsub worker's function and trigger
// type that are missing, in the default namespace, when the engine has
// one.
func (r *registry) installPubSubLocked() {
	if !r.withPubSub {
		return
	}
	r.installLocked(DefaultNamespace, pubsubBuiltins(), []*triggerType{{id: triggerSubscribe,
		description: triggerSubscribeDesc, worker: pubsubWorkerName}})
}

// startPubSub gives the engine its pubsub worker when Options.PubSub is
// set; it runs in Start before the registry is initialised. A Redis
// adapter's goroutines start in startPubSubRedis, once the engine exists.
func (s *Engine) startPubSub() error {
	if err := CheckPubSub(s.opts.PubSub); err != nil {
		return err
	}
	s.registry.withPubSub = s.opts.PubSub != ""
	if s.opts.PubSub == "" || s.opts.PubSub == PubSubLocal {
		return nil
	}
	r, err := openRedisPubSub(s.opts.PubSub)
	if err != nil {
		return err
	}
	s.pubsubRedis = r
	return nil
}

// publish is the pubsub worker's function: an empty topic is refused
// with topic_not_set, as iii refuses it; otherwise the data goes to every
// binding of the topic (local) or to Redis (whence every engine's
// bindings of it receive it). iii answers null even when Redis failed
// (its adapter logs and drops); this engine answers publish_failed,
// naming the server and the cause, so a caller can tell the publish went
// nowhere (D75).
func publish(s *Engine, _ string, data json.RawMessage) (json.RawMessage, *wire.ErrorBody) {
	a, e := publishInput.decode(pubsubPublish, data)
	if e != nil {
		return nil, e
	}
	topic := a.str("topic")
	if topic == "" {
		return nil, &wire.ErrorBody{Code: codeTopicNotSet, Message: "Topic is not set"}
	}
	payload := mustEncode(a["data"])
	if s.pubsubRedis != nil {
		if err := s.pubsubRedis.publish(topic, payload); err != nil {
			return nil, &wire.ErrorBody{Code: codePublishFailed, Message: err.Error()}
		}
		return nil, nil
	}
	s.deliverPublished(topic, payload)
	return nil, nil
}

// publishVoid is publish as a void call runs it: nobody waits for the
// answer, so a publish to Redis is queued for the adapter's publisher
// (pubsub_redis.go) rather than waited for on the caller's read loop,
// where it would hold up the caller's next frames (the reply to the call
// it was publishing about, say). Input publish would refuse is dropped,
// as the refusal would be.
func publishVoid(s *Engine, _ string, data json.RawMessage) {
	a, e := publishInput.decode(pubsubPublish, data)
	if e != nil || a.str("topic") == "" {
		return
	}
	payload := mustEncode(a["data"])
	if s.pubsubRedis != nil {
		s.pubsubRedis.enqueue(s, a.str("topic"), payload)
		return
	}
	s.deliverPublished(a.str("topic"), payload)
}

// deliverPublished calls every live binding of topic with payload, each
// in its binding's namespace, without waiting for any: iii spawns a task
// per subscriber and discards the results.
func (s *Engine) deliverPublished(topic string, payload json.RawMessage) {
	for _, b := range s.liveBindings(triggerSubscribe) {
		if t, ok := subscribeTopic(b.config); ok && t == topic {
			s.call(callRequest{namespace: b.target(), functionID: b.functionID, data: payload})
		}
	}
}

// subscribedTopics lists the topics the live bindings of subscribe name.
func (s *Engine) subscribedTopics() map[string]struct{} {
	topics := map[string]struct{}{}
	for _, b := range s.liveBindings(triggerSubscribe) {
		if t, ok := subscribeTopic(b.config); ok {
			topics[t] = struct{}{}
		}
	}
	return topics
}

// subscribeTopic reads a subscribe binding's topic: ok only for an object
// whose topic is a string that is not empty.
func subscribeTopic(raw json.RawMessage) (string, bool) {
	var c struct {
		Topic *string `json:"topic"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &c) != nil || c.Topic == nil || *c.Topic == "" {
		return "", false
	}
	return *c.Topic, true
}

// checkSubscribeBinding validates a new binding of the subscribe trigger
// type. iii accepts a binding without a topic and logs a warning; the
// binding never fires. This engine refuses it, naming what it got, so a
// worker tested here learns of the mistake (D75).
func checkSubscribeBinding(m wire.RegisterTrigger) *wire.ErrorBody {
	if _, ok := subscribeTopic(m.Config); ok {
		return nil
	}
	got := "no config"
	if cfg := bytes.TrimSpace(m.Config); len(cfg) > 0 && string(cfg) != "null" {
		got = "config " + string(cfg)
		if len(got) > 200 {
			got = got[:200] + "…"
		}
	}
	return &wire.ErrorBody{Code: codeTriggerRegistration, Message: fmt.Sprintf(
		"Failed to register subscribe trigger %q: its config needs a topic, a string that is not empty, such as {\"topic\": \"orders.shipped\"}; got %s", m.ID, got)}
}
