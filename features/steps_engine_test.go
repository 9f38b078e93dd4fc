package features

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/cucumber/godog"

	"github.com/iii-hq/skills-go/internal/engine"
)

// pollTick spaces the reads of a "within N ms" step: the step's deadline
// decides, the tick only paces the asking.
const pollTick = 10 * time.Millisecond

// Steps about the engine itself: a scenario's own local engine (one that
// can go down, or that lacks the state trigger type), outages, writes made
// behind the worker's back, and reads that must catch up with them.
func (w *world) engineSteps(sc *godog.ScenarioContext) {
	sc.Step(`^the scenario runs its own local engine$`, func() error {
		return w.ownEngine(engine.Options{})
	})
	sc.Step(`^the scenario runs its own local engine, without the state trigger type$`, func() error {
		return w.ownEngine(engine.Options{WithoutStateTrigger: true})
	})
	sc.Step(`^the (skills|prompts) scope loses the row "([^"]*)"$`, func(which, key string) error {
		w.engineUsed = true
		_, err := w.engineCall(context.Background(), "state::delete", map[string]any{"scope": w.scope(which), "key": key})
		return err
	})
	sc.Step(`^the engine goes down$`, w.engineDown)
	sc.Step(`^while the engine is down, the (skills|prompts) scope gets the row "([^"]*)":$`, func(which, key string, doc *godog.DocString) error {
		srv, err := w.downEngine()
		if err != nil {
			return err
		}
		raw, err := w.payload(doc.Content)
		if err != nil {
			return err
		}
		return srv.SetState(w.scope(which), key, raw)
	})
	sc.Step(`^while the engine is down, the (skills|prompts) scope loses the row "([^"]*)"$`, func(which, key string) error {
		srv, err := w.downEngine()
		if err != nil {
			return err
		}
		srv.DeleteState(w.scope(which), key)
		return nil
	})
	sc.Step(`^the engine comes back$`, w.engineBack)
	// Through another engine sharing the store: the row changes and this
	// engine fires no state event (docs/decisions.md D73).
	sc.Step(`^through another engine, the (skills|prompts) scope gets the row "([^"]*)":$`, func(which, key string, doc *godog.DocString) error {
		raw, err := w.payload(doc.Content)
		if err != nil {
			return err
		}
		return w.writeUnannounced(which, key, raw)
	})
	sc.Step(`^through another engine, the (skills|prompts) scope loses the row "([^"]*)"$`, func(which, key string) error {
		return w.writeUnannounced(which, key, nil)
	})
	sc.Step(`^within (\d+) ms, reading "([^"]*)" gives:$`, func(ms int, uri string, doc *godog.DocString) error {
		want := w.expand(doc.Content)
		return w.readUntil(ms, uri, func() error {
			if w.err != nil {
				return w.err
			}
			text, err := w.text()
			if err != nil {
				return err
			}
			return compareText("text", "is", text, want)
		})
	})
	sc.Step(`^within (\d+) ms, reading "([^"]*)" fails with code "([^"]*)"$`, func(ms int, uri, code string) error {
		return w.readUntil(ms, uri, func() error {
			e, err := w.failed()
			if err == nil && e.Code != code {
				err = fmt.Errorf("want code %q, got %q (message %q)", code, e.Code, e.Message)
			}
			return err
		})
	})
}

// scope is the scenario's skills or prompts scope.
func (w *world) scope(which string) string {
	if which == "prompts" {
		return w.promptsScope()
	}
	return w.skillsScope()
}

// ownEngine starts a local engine for this scenario alone; the worker and
// every call of the scenario use it. It must come before the worker starts.
func (w *world) ownEngine(opts engine.Options) error {
	if w.workerStarted || w.own != nil {
		return errors.New("the scenario's own engine must be its first step, before the worker starts")
	}
	l, err := w.run.startEngine(opts)
	if err != nil {
		return err
	}
	w.own = l
	return nil
}

// writeUnannounced writes raw at key of the scope (nil deletes it) in the
// scenario's local engine without a state event, as a write through
// another engine sharing its store looks from this one.
func (w *world) writeUnannounced(which, key string, raw json.RawMessage) error {
	l, err := w.link()
	if err != nil {
		return err
	}
	srv := l.local()
	if srv == nil {
		return errors.New("a write through another engine is made in a local engine's store: this run's engine is external")
	}
	w.engineUsed = true
	return srv.WriteStateUnannounced(w.scope(which), key, raw)
}

// downEngine is the scenario's own engine, which must be down.
func (w *world) downEngine() (*engine.Engine, error) {
	if w.own == nil || !w.ownDown {
		return nil, errors.New("the engine is not down: the scenario runs its own local engine, then it goes down")
	}
	return w.own.srv, nil
}

// engineDown takes the scenario's own engine down, as a crash would:
// every connection dropped, every registration gone, state kept.
func (w *world) engineDown() error {
	if w.own == nil {
		return errors.New("only the scenario's own local engine can go down: start with `the scenario runs its own local engine`")
	}
	if err := w.ensureWorker(); err != nil {
		return err
	}
	w.ownConn = w.own.client.Connection()
	if err := w.own.srv.Pause(); err != nil {
		return err
	}
	w.ownDown = true
	return nil
}

// engineBack brings the engine back and waits until the harness has
// reconnected and the worker serves again; the scenario's recorder,
// whose connection the outage ended, subscribes again.
func (w *world) engineBack() error {
	if _, err := w.downEngine(); err != nil {
		return err
	}
	if err := w.own.srv.Resume(); err != nil {
		return err
	}
	w.ownDown = false
	ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
	defer cancel()
	if _, err := w.own.client.WaitConnection(ctx, w.ownConn); err != nil {
		return fmt.Errorf("the harness did not reconnect: %w", err)
	}
	w.rec.close()
	return w.ready(w.worker)
}

// readUntil reads uri through the worker until check accepts the
// outcome, and fails with check's last complaint when ms have passed.
func (w *world) readUntil(ms int, uri string, check func() error) error {
	payload, err := json.Marshal(map[string]string{"uri": uri})
	if err != nil {
		return err
	}
	if err := w.callUntil(ms, "", "skills::resources-read", payload, check); err != nil {
		return fmt.Errorf("reading %s within %d ms: %w", uri, ms, err)
	}
	return nil
}

// callUntil calls fn in namespace ns ("": none) with payload until check
// accepts the outcome, and returns check's last complaint when ms have
// passed. The deadline decides; pollTick only paces the asking.
func (w *world) callUntil(ms int, ns, fn string, payload json.RawMessage, check func() error) error {
	deadline := time.Now().Add(time.Duration(ms) * time.Millisecond)
	for {
		if err := w.callIn(ns, fn, payload); err != nil {
			return err
		}
		last := check()
		if last == nil || time.Now().After(deadline) {
			return last
		}
		time.Sleep(pollTick)
	}
}
