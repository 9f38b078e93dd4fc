package features

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cucumber/godog"
	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/iii"
)

// Steps of skills checked against the live engine (docs/decisions.md
// D85): another worker, in this process but on a connection of its own,
// serves a function a skill requires, and goes and comes back.

// providers are the scenario's other workers, by name.
type providers map[string]*iii.Client

// close disconnects every one still connected.
func (p providers) close() {
	for name, c := range p {
		c.Close() //nolint:errcheck // the scenario is over
		delete(p, name)
	}
}

func (w *world) availabilitySteps(sc *godog.ScenarioContext) {
	sc.Step(`^a worker "([^"]*)" serves the function "([^"]*)"$`, w.providerServes)
	sc.Step(`^the worker "([^"]*)" disconnects$`, w.providerDisconnects)
	sc.Step(`^within (\d+) ms, calling "([^"]*)" with "((?:[^"\\]|\\.)*)" gives a result that (contains|does not contain):$`,
		func(ms int, fn, payload, op string, doc *godog.DocString) error {
			// The payload is written in the step's quotes, its own quotes as \".
			payload = strings.ReplaceAll(payload, `\"`, `"`)
			return w.callUntil(ms, w.ns, fn, json.RawMessage(w.expand(payload)), func() error {
				if w.err != nil {
					return w.err
				}
				return w.resultContains(op, doc)
			})
		})
}

// providerServes connects a worker named name serving function id (it
// answers {"status": "ok"}), and returns once the engine lists it.
func (w *world) providerServes(name, id string) error {
	if err := w.ensureWorker(); err != nil {
		return err
	}
	if _, ok := w.providers[name]; ok {
		return fmt.Errorf("the worker %q is connected already", name)
	}
	l, err := w.link()
	if err != nil {
		return err
	}
	c := iii.New(iii.Options{URL: l.url, Name: name, Namespace: w.ns, Logger: zap.NewNop()})
	c.RegisterFunction(iii.Function{ID: id, Description: "bdd: a function a skill requires",
		Handler: func(context.Context, iii.Request) (any, error) { return map[string]string{"status": "ok"}, nil }})
	c.Start()
	if w.providers == nil {
		w.providers = providers{}
	}
	w.providers[name] = c
	ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
	defer cancel()
	if err := c.WaitReady(ctx); err != nil {
		return fmt.Errorf("the worker %q did not connect: %w", name, err)
	}
	if l.srv != nil && w.ns == "" {
		return l.srv.WaitFunction(ctx, id)
	}
	if l.srv != nil {
		return l.srv.WaitFunctionIn(ctx, w.ns, id)
	}
	return l.awaitListing(ctx, id, true)
}

// providerDisconnects ends the worker's connection (a graceful stop: the
// engine removes its functions when the socket closes).
func (w *world) providerDisconnects(name string) error {
	c, ok := w.providers[name]
	if !ok {
		return fmt.Errorf("no worker %q is connected", name)
	}
	delete(w.providers, name)
	if err := c.Close(); err != nil && !errors.Is(err, iii.ErrClosed) {
		return err
	}
	return nil
}
