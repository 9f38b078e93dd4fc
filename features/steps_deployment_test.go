package features

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cucumber/godog"

	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii"
)

// composeContainer is the container key of the worker the compose
// scenarios start: compose passes it as III_WORKER_NAME and, as the
// configuration entry of the container, III_CONFIG_NAME.
const composeContainer = "docs"

// Steps about how an iii engine runs the worker (docs/deployment.md):
// started as iii compose starts a container, in a namespace of an engine
// with engine 0.23's namespace rules, with a state worker that comes late
// or one per namespace, and following its configuration entry.
func (w *world) deploymentSteps(sc *godog.ScenarioContext) {
	sc.Step(`^the scenario runs its own local engine with (.+)$`, func(what string) error {
		opts, err := engineOptions(what)
		if err != nil {
			return err
		}
		return w.ownEngine(opts)
	})
	sc.Step(`^the state worker registers(?: in namespace "([^"]*)")?$`, w.stateWorkerRegisters)
	sc.Step(`^the worker is started as iii compose starts it(?: in namespace "([^"]*)")?(?:, with III_CONFIG naming "([^"]*)")?$`, w.startAsCompose)

	sc.Step(`^I call "([^"]*)" in namespace "([^"]*)"$`, func(fn, ns string) error { return w.callIn(ns, fn, nil) })
	sc.Step(`^I call "([^"]*)" in namespace "([^"]*)" with:$`, func(fn, ns string, doc *godog.DocString) error {
		raw, err := w.payload(doc.Content)
		if err != nil {
			return err
		}
		return w.callIn(ns, fn, raw)
	})
	sc.Step(`^the state of namespace "([^"]*)" (has the|has no) row "([^"]*)" in the (skills|prompts) scope$`, w.stateRowIn)
	sc.Step(`^the configuration entry "([^"]*)" gets:$`, w.changeEntry)

	// Polls: the call is made again, every pollTick, until its outcome
	// passes or the time is up; the last outcome is the result the next
	// steps check.
	const within = `^within (\d+) ms, calling "([^"]*)"(?: in namespace "([^"]*)")? `
	sc.Step(within+`gives at "([^"]*)" (.+)$`, func(ms int, fn, ns, path, lit string) error {
		return w.pollCall(ms, ns, fn, func() error { return w.resultAt(path, "is", lit) })
	})
	sc.Step(within+`gives (\d+) items? at "([^"]*)"$`, func(ms int, fn, ns string, n int, path string) error {
		return w.pollCall(ms, ns, fn, func() error {
			items, err := w.items(path)
			if err == nil && len(items) != n {
				err = fmt.Errorf("%q has %d items, want %d: %s", path, len(items), n, show(items))
			}
			return err
		})
	})
	sc.Step(within+`gives a result with "([^"]*)"$`, func(ms int, fn, ns, path string) error {
		return w.pollCall(ms, ns, fn, func() error { _, err := w.at(path); return err })
	})
	sc.Step(within+`gives a result containing:$`, func(ms int, fn, ns string, doc *godog.DocString) error {
		return w.pollCall(ms, ns, fn, func() error { return w.resultContains("contains", doc) })
	})
}

// engineOptions reads what a scenario's own engine has: "namespaces",
// "a configuration worker" and "a late state worker", joined by "and".
func engineOptions(what string) (engine.Options, error) {
	var opts engine.Options
	for part := range strings.SplitSeq(what, " and ") {
		switch strings.TrimSpace(part) {
		case "namespaces":
			opts.Namespaces = true
		case "a configuration worker":
			opts.Configuration = true
		case "a late state worker":
			opts.StateWorkerLate = true
		default:
			return opts, fmt.Errorf(`the engine's %q: want "namespaces", "a configuration worker" or "a late state worker", joined by "and"`, part)
		}
	}
	return opts, nil
}

// pollCall calls fn (in namespace ns) with {} until check passes, for up
// to ms.
func (w *world) pollCall(ms int, ns, fn string, check func() error) error {
	if err := w.callUntil(ms, ns, fn, nil, check); err != nil {
		return fmt.Errorf("calling %s within %d ms: %w", fn, ms, err)
	}
	return nil
}

// ownLocal is the scenario's own local engine, for the steps that change
// the engine itself.
func (w *world) ownLocal() (*engine.Engine, error) {
	if w.own == nil {
		return nil, errors.New("this step needs the scenario's own local engine: start with `the scenario runs its own local engine with …`")
	}
	return w.own.srv, nil
}

// stateWorkerRegisters starts the state worker of the scenario's own
// engine in namespace ns ("": the default one): a late one (an engine
// with a late state worker), or a namespace's own.
func (w *world) stateWorkerRegisters(ns string) error {
	srv, err := w.ownLocal()
	if err != nil {
		return err
	}
	if ns == "" {
		srv.StartState()
		return nil
	}
	return srv.StartStateIn(ns)
}

// startAsCompose starts the worker as iii compose 0.23 starts a package's
// binary (docs/deployment.md): no arguments; an environment built from
// scratch of PATH, HOME and the reserved variables (III_URL,
// III_NAMESPACE, III_WORKER_NAME, III_CONFIG, III_CONFIG_NAME); the
// scenario directory as working directory; III_CONFIG naming the
// scenario's config written, mode 0600, into a private directory
// elsewhere (nothing is written to the scenario directory's config.yaml),
// or config, a path relative to the scenario directory, when given. It
// waits as compose does, for the worker's functions and for a worker of
// its name in its namespace, then subscribes the recorder.
func (w *world) startAsCompose(ns, config string) error {
	l, err := w.link()
	if err != nil {
		return err
	}
	path := filepath.Join(w.dir, filepath.FromSlash(config))
	if config == "" {
		if path, err = w.writeComposeConfig(); err != nil {
			return err
		}
	}
	if ns == engine.DefaultNamespace {
		ns = ""
	}
	w.ns, w.composeConfig = ns, path
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"III_URL=" + l.url, "III_NAMESPACE=" + namespaceName(ns), "III_WORKER_NAME=" + composeContainer,
		"III_CONFIG=" + path, "III_CONFIG_NAME=" + composeContainer,
	}
	if err := w.spawnWorkerIn(w.dir, nil, env); err != nil {
		return err
	}
	if err := w.ready(w.worker); err != nil {
		return err
	}
	return w.workerListed(l, namespaceName(ns))
}

// namespaceName spells the default namespace out.
func namespaceName(ns string) string {
	if ns == "" {
		return iii.DefaultNamespace
	}
	return ns
}

// writeComposeConfig writes the scenario's config where compose writes a
// container's: a 0600 file in a 0700 directory of its own, outside the
// scenario directory.
func (w *world) writeComposeConfig() (string, error) {
	dir := filepath.Join(w.run.tmp, "compose-"+w.uid, "config")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	b, err := json.MarshalIndent(w.config, "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, composeContainer+".yaml")
	return path, os.WriteFile(path, b, 0o600)
}

// workerListed checks compose's readiness condition: the engine lists a
// worker named composeContainer in namespace ns. The local engine says
// so directly; an external one through engine::workers::list (the worker
// declared its name before it registered the functions it now serves).
func (w *world) workerListed(l *link, ns string) error {
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	if l.srv != nil {
		if err := l.srv.WaitWorkerIn(ctx, ns, composeContainer); err != nil {
			return fmt.Errorf("compose's readiness: %w; the worker's output:\n%s", err, w.worker.out)
		}
		return nil
	}
	res, err := l.call(ctx, "engine::workers::list", map[string]any{})
	if err != nil {
		return err
	}
	var out struct {
		Workers []struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"workers"`
	}
	if err := json.Unmarshal(res, &out); err != nil {
		return err
	}
	for _, wk := range out.Workers {
		if wk.Name == composeContainer && namespaceName(wk.Namespace) == ns {
			return nil
		}
	}
	return fmt.Errorf("compose's readiness: engine::workers::list has no worker %q in namespace %q: %s", composeContainer, ns, res)
}

// stateRowIn checks the store of namespace ns's state worker on the
// scenario's own engine for the row key of the scenario's skills or
// prompts scope.
func (w *world) stateRowIn(ns, has, key, which string) error {
	srv, err := w.ownLocal()
	if err != nil {
		return err
	}
	_, ok := srv.StateIn(ns, w.scope(which), key)
	switch {
	case has == "has the" && !ok:
		return fmt.Errorf("the state of namespace %q has no row %q in scope %s", ns, key, w.scope(which))
	case has == "has no" && ok:
		return fmt.Errorf("the state of namespace %q has the row %q in scope %s", ns, key, w.scope(which))
	}
	return nil
}

// changeEntry changes the configuration entry id as an operator would:
// it reads the entry's value with configuration::get (waiting for the
// worker to have ensured it), sets the doc's keys in it ("group.key" for
// a key of a group, such as "search.embedder"), keeps every other key,
// and stores it with configuration::set, whose outcome is the result.
func (w *world) changeEntry(id string, doc *godog.DocString) error {
	raw, err := w.payload(doc.Content)
	if err != nil {
		return err
	}
	parsed, err := parseJSON(raw) // numbers kept as written
	changes, ok := parsed.(map[string]any)
	if err != nil || !ok {
		return fmt.Errorf("the changes must be a JSON object, got %s", raw)
	}
	if err := w.ensureWorker(); err != nil {
		return err
	}
	value, err := w.entryValue(id)
	if err != nil {
		return err
	}
	for k, v := range changes {
		group, leaf, nested := strings.Cut(k, ".")
		if !nested {
			value[k] = v
			continue
		}
		g, ok := value[group].(map[string]any)
		if !ok {
			g = map[string]any{}
			value[group] = g
		}
		g[leaf] = v
	}
	w.result, w.err = w.engineCall(context.Background(), "configuration::set", map[string]any{"id": id, "value": value})
	return nil
}

// entryValue reads the value of configuration entry id once the
// scenario's own engine holds it: the worker ensures its entry once
// connected, which may come after it serves.
func (w *world) entryValue(id string) (map[string]any, error) {
	if w.own == nil {
		return nil, errors.New("a configuration entry is changed on the scenario's own engine: start with `the scenario runs its own local engine with a configuration worker`")
	}
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	if err := w.own.srv.WaitConfiguration(ctx, id); err != nil {
		return nil, fmt.Errorf("the worker never ensured its configuration entry: %w", err)
	}
	res, err := w.engineCall(ctx, "configuration::get", map[string]any{"id": id})
	if err != nil {
		return nil, fmt.Errorf("configuration::get %s: %w", id, err)
	}
	entry, err := parseJSON(res) // numbers kept as stored
	value, ok := lookup(entry, "value")
	if obj, isObj := value.(map[string]any); err == nil && ok && isObj {
		return obj, nil
	}
	return nil, fmt.Errorf("configuration::get %s: want {id, value} with an object value, got %s", id, res)
}
