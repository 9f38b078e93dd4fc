package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
)

// The pubsub worker's Redis adapter (docs/decisions.md D75), as iii's
// (engine/src/workers/pubsub/adapters/redis_adapter.rs in iii-hq/iii):
// publish is a Redis PUBLISH on the channel named by the topic, of the
// data's JSON text; the engine SUBSCRIBEs to the channel of every topic
// its subscribe bindings name and calls those bindings with what
// arrives, its own publishes included. One subscriber connection carries
// every topic. While Redis cannot be reached a publish fails naming the
// server and the cause, and the subscriber tries again on a backoff;
// go-redis subscribes the connection it makes again to every topic, so
// the bindings hear publishes again once Redis is back, without a
// restart. A message published while the connection was down is lost, as
// with iii: pubsub keeps nothing.

// Backoff bounds of the subscriber after a failed read.
const (
	pubsubRetryMin = 100 * time.Millisecond
	pubsubRetryMax = 2 * time.Second
)

// publishQueue bounds the void publishes waiting for Redis; one more is
// dropped (and logged), as a publish to a Redis that cannot take it is.
const publishQueue = 4096

// redisPubSub is the Redis adapter: a client for PUBLISH and one
// subscriber connection.
type redisPubSub struct {
	client *redis.Client
	sub    *redis.PubSub
	url    string // as given, with any password hidden
	ctx    context.Context
	stop   context.CancelFunc
	queue  chan published // void publishes, in the order they came
}

// published is one void publish waiting for Redis.
type published struct {
	topic   string
	payload json.RawMessage
}

// openRedisPubSub makes the clients; it does not wait for Redis.
func openRedisPubSub(raw string) (*redisPubSub, error) {
	opts, err := parseStateURL(raw)
	if err != nil {
		return nil, &PubSubError{Value: raw, Why: err.(*StateURLError).Why}
	}
	ctx, stop := context.WithCancel(context.Background())
	client := redis.NewClient(opts)
	return &redisPubSub{client: client, sub: client.Subscribe(ctx), url: redactURL(raw), ctx: ctx, stop: stop,
		queue: make(chan published, publishQueue)}, nil
}

// publish sends payload on topic's channel; it fails when Redis did not
// take it.
func (r *redisPubSub) publish(topic string, payload json.RawMessage) error {
	ctx, cancel := context.WithTimeout(r.ctx, redisCallTimeout)
	defer cancel()
	if err := r.client.Publish(ctx, topic, []byte(payload)).Err(); err != nil {
		return fmt.Errorf("not published to Redis at %s (topic %q): %w", r.url, topic, err)
	}
	return nil
}

// enqueue queues a void publish for sendPublished; it never blocks.
func (r *redisPubSub) enqueue(s *Engine, topic string, payload json.RawMessage) {
	select {
	case r.queue <- published{topic, payload}:
	default:
		s.log.Warn("pubsub: a void publish dropped: too many wait for Redis", zap.String("redis", r.url), zap.String("topic", topic))
	}
}

// sendPublished publishes the void publishes in the order they came,
// until Close; one Redis did not take is logged, the first of a run of
// failures only.
func (s *Engine) sendPublished() {
	defer s.bg.Done()
	r := s.pubsubRedis
	failing := false
	for {
		select {
		case <-s.quit:
			return
		case m := <-r.queue:
			err := r.publish(m.topic, m.payload)
			switch {
			case err != nil && !failing && r.ctx.Err() == nil:
				s.log.Warn("pubsub: a void publish failed; it is dropped", zap.Error(err))
			case err == nil && failing:
				s.log.Info("pubsub: Redis takes publishes again", zap.String("redis", r.url))
			}
			failing = err != nil
		}
	}
}

// close ends the subscriber's read and both connections.
func (r *redisPubSub) close() {
	r.stop()
	_ = r.sub.Close()
	_ = r.client.Close()
}

// startPubSubRedis starts the adapter's three goroutines: one reads what
// Redis delivers, one keeps the subscription to the bindings' topics, one
// sends the void publishes.
func (s *Engine) startPubSubRedis() {
	if s.pubsubRedis == nil {
		return
	}
	s.bg.Add(3)
	go s.receivePublished()
	go s.followTopics()
	go s.sendPublished()
}

// receivePublished delivers each message Redis sends to the bindings of
// its channel's topic, until Close. A message that is not JSON is
// dropped, as iii drops it.
func (s *Engine) receivePublished() {
	defer s.bg.Done()
	r := s.pubsubRedis
	delay := time.Duration(0)
	for {
		msg, err := r.sub.Receive(r.ctx)
		if r.ctx.Err() != nil {
			return
		}
		if err != nil {
			if delay == 0 {
				s.log.Warn("pubsub: Redis does not answer; subscriptions resume when it does",
					zap.String("redis", r.url), zap.Error(err))
			}
			delay = min(max(2*delay, pubsubRetryMin), pubsubRetryMax)
			t := time.NewTimer(delay)
			select {
			case <-s.quit:
				t.Stop()
				return
			case <-t.C:
			}
			continue
		}
		switch m := msg.(type) {
		case *redis.Subscription:
			if delay > 0 {
				s.log.Info("pubsub: subscribed to Redis again", zap.String("redis", r.url), zap.String("topic", m.Channel))
				delay = 0
			}
		case *redis.Message:
			if !json.Valid([]byte(m.Payload)) {
				s.log.Debug("pubsub: a message that is not JSON dropped", zap.String("topic", m.Channel))
				continue
			}
			s.deliverPublished(m.Channel, canonical(json.RawMessage(m.Payload)))
		}
	}
}

// followTopics subscribes to the channel of each topic a live binding
// names and unsubscribes from those none names any more, whenever the
// registry changes, until Close. go-redis keeps the set even when Redis
// is down, and subscribes a new connection to all of it.
func (s *Engine) followTopics() {
	defer s.bg.Done()
	r := s.pubsubRedis
	have := map[string]struct{}{}
	for {
		s.mu.Lock()
		changed := s.changed
		s.mu.Unlock()
		want := s.subscribedTopics()
		var add, drop []string
		for t := range want {
			if _, ok := have[t]; !ok {
				add = append(add, t)
			}
		}
		for t := range have {
			if _, ok := want[t]; !ok {
				drop = append(drop, t)
			}
		}
		if len(add) > 0 {
			slices.Sort(add)
			if err := r.sub.Subscribe(r.ctx, add...); err != nil && r.ctx.Err() == nil {
				s.log.Warn("pubsub: subscribe sent to Redis failed; it is sent again when Redis answers",
					zap.String("redis", r.url), zap.Strings("topics", add), zap.Error(err))
			}
		}
		if len(drop) > 0 {
			slices.Sort(drop)
			_ = r.sub.Unsubscribe(r.ctx, drop...) // gone from the set either way
		}
		have = maps.Clone(want)
		select {
		case <-s.quit:
			return
		case <-changed:
		}
	}
}
