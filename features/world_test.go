package features

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"github.com/cucumber/godog"
)

// world is one scenario's state; godog builds a fresh one per scenario.
type world struct {
	run *run
	uid string // 12 hex digits, unique to the scenario
	dir string // the scenario's directory: config.yaml, fs-skills/, fs-prompts/

	// config is written to dir/config.yaml (as JSON, which is YAML) when
	// the worker starts.
	config map[string]any

	worker        *process
	workerStarted bool   // a worker was started in this scenario (maybe stopped since)
	workerStopped bool   // the scenario stopped it and checked its exit
	ns            string // the worker's namespace; "" is the default one
	composeConfig string // the file $III_CONFIG names, for a worker started as iii compose starts it

	// The outcome of the last call or evaluation.
	result json.RawMessage
	err    error

	vars    map[string]string // remembered values as JSON, by name: {{name}}
	bg      *backgroundCall
	rec     *recorder // on-change notifications received
	markers int       // marker changes made so far

	engineUsed bool // state scopes may hold rows to clean up
	procs      procState
	providers  providers // other workers serving functions skills require (D85)

	// own is the scenario's own local engine, when it runs one (closed at
	// its end); otherwise the scenario uses the run's shared engine.
	own     *link
	ownDown bool   // own is down (paused) now
	ownConn string // the harness's connection to own before it went down
}

// link is the engine the scenario works with: its own, or the run's
// shared one (started on first need).
func (w *world) link() (*link, error) {
	if w.own != nil {
		return w.own, nil
	}
	return w.run.engine()
}

// engineCall makes one synchronous call through the scenario's engine.
func (w *world) engineCall(ctx context.Context, functionID string, payload any) (json.RawMessage, error) {
	return w.engineCallIn(ctx, "", functionID, payload)
}

// engineCallIn is engineCall naming namespace ns ("": none).
func (w *world) engineCallIn(ctx context.Context, ns, functionID string, payload any) (json.RawMessage, error) {
	l, err := w.link()
	if err != nil {
		return nil, err
	}
	return l.callIn(ctx, ns, functionID, payload)
}

// initScenario registers the steps of every domain on a fresh world.
func (r *run) initScenario(sc *godog.ScenarioContext) {
	w := &world{run: r, vars: map[string]string{}}
	sc.Before(func(ctx context.Context, _ *godog.Scenario) (context.Context, error) {
		return ctx, w.begin()
	})
	sc.After(func(ctx context.Context, _ *godog.Scenario, stepErr error) (context.Context, error) {
		err := w.end()
		if (stepErr != nil || err != nil) && w.worker != nil {
			godog.Logf(ctx, "worker output:\n%s", w.worker.out)
		}
		return ctx, err
	})
	w.callSteps(sc)
	w.markdownSteps(sc)
	w.fsSteps(sc)
	w.hardeningSteps(sc)
	w.notificationSteps(sc)
	w.processSteps(sc)
	w.engineSteps(sc)
	w.toolSteps(sc)
	w.deploymentSteps(sc)
	w.configTrapSteps(sc)
	w.availabilitySteps(sc)
}

func (w *world) begin() error {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		return err
	}
	w.uid = hex.EncodeToString(b)
	w.run.newSlowGate()
	dir, err := os.MkdirTemp(w.run.tmp, "scenario-"+w.uid+"-")
	if err != nil {
		return err
	}
	w.dir = dir
	for _, sub := range []string{"fs-skills", "fs-prompts"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
			return err
		}
	}
	w.config = map[string]any{
		"scopes":           map[string]any{"skills": w.skillsScope(), "prompts": w.promptsScope()},
		"state_timeout_ms": 10000,
		"skills":           []string{"fs-skills/**/*.md"},
		"prompts":          []string{"fs-prompts/**/*.md"},
	}
	return nil
}

// end releases what the scenario held: subscriptions, the background call,
// the worker (which must exit 0 on SIGTERM), the recording engine and the
// state rows of the scenario's scopes.
func (w *world) end() error {
	var errs []error
	w.rec.close()
	w.run.slowGate().open() // bdd::slow calls still waiting answer now
	if w.bg != nil {
		<-w.bg.done
	}
	if w.worker != nil && !w.workerStopped {
		code, err := w.worker.stop(syscall.SIGTERM, stopTimeout)
		switch {
		case err != nil:
			errs = append(errs, err)
		case code != 0:
			errs = append(errs, fmt.Errorf("the worker exited with code %d on SIGTERM, want 0", code))
		}
	}
	w.procs.close()
	w.providers.close()
	if w.own != nil {
		w.own.close() // its state goes with it
		return errors.Join(errs...)
	}
	if srv := w.run.shared.local(); w.worker != nil && srv != nil {
		// The next scenario's worker registers the same functions: wait
		// until the engine has let go of this one's.
		ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
		if err := srv.WaitFunctionGone(ctx, servingProbe); err != nil {
			errs = append(errs, fmt.Errorf("after the worker exited: %w", err))
		}
		cancel()
	}
	if w.engineUsed {
		errs = append(errs, w.cleanState())
	}
	return errors.Join(errs...)
}

// engineURL is the URL of the scenario's engine, "" before it started.
func (w *world) engineURL() string {
	if w.own != nil {
		return w.own.url
	}
	if w.run.shared != nil {
		return w.run.shared.url
	}
	return ""
}

func (w *world) skillsScope() string  { return "skills-bdd-" + w.uid }
func (w *world) promptsScope() string { return "prompts-bdd-" + w.uid }

// cleanState deletes the rows the scenario wrote, so a shared engine does
// not accumulate them.
func (w *world) cleanState() error {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	for scope, key := range map[string]string{w.skillsScope(): "id", w.promptsScope(): "name"} {
		res, err := w.engineCall(ctx, "state::list", map[string]any{"scope": scope})
		if err != nil {
			return fmt.Errorf("clean up scope %s: %w", scope, err)
		}
		var rows []map[string]any
		_ = json.Unmarshal(res, &rows) // anything else holds nothing to delete
		for _, row := range rows {
			if k, ok := row[key].(string); ok {
				if _, err := w.engineCall(ctx, "state::delete", map[string]any{"scope": scope, "key": k}); err != nil {
					return fmt.Errorf("clean up %s/%s: %w", scope, k, err)
				}
			}
		}
	}
	return nil
}

// ensureWorker starts the scenario's worker on first need: the real binary
// against the engine, with the scenario's config, subscribed to by the
// recorder. A scenario that already started (or stopped) a worker keeps it.
func (w *world) ensureWorker() error {
	if w.workerStarted {
		return nil
	}
	l, err := w.link()
	if err != nil {
		return err
	}
	cfg, err := w.writeConfig()
	if err != nil {
		return err
	}
	args := []string{"--url", l.url, "--config", cfg}
	if err := w.spawnWorker(args, nil); err != nil {
		return err
	}
	return w.ready(w.worker)
}

// spawnWorker starts the binary with args and extra environment as the
// scenario's worker, without waiting for it.
func (w *world) spawnWorker(args []string, env map[string]string) error {
	return w.spawnWorkerIn("", args, workerEnv(env))
}

// spawnWorkerIn starts the binary in directory dir ("": the test's) with
// args and exactly the environment env, as the scenario's worker, without
// waiting for it.
func (w *world) spawnWorkerIn(dir string, args, env []string) error {
	if w.workerStarted {
		return fmt.Errorf("a worker was already started in this scenario")
	}
	bin, err := w.run.binary()
	if err != nil {
		return err
	}
	p, err := startProcess(bin, dir, args, env)
	if err != nil {
		return err
	}
	w.worker, w.workerStarted = p, true
	return nil
}

// ready waits until the worker serves through the engine, then subscribes
// the scenario's recorder to its notifications.
func (w *world) ready(p *process) error {
	w.engineUsed = true
	if err := w.waitServing(p); err != nil {
		return err
	}
	l, err := w.link()
	if err != nil {
		return err
	}
	rec, err := subscribe(l, w.uid, w.ns)
	w.rec = rec
	return err
}

// writeConfig writes the scenario's config.yaml and returns its path.
func (w *world) writeConfig() (string, error) {
	b, err := json.MarshalIndent(w.config, "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(w.dir, "config.yaml")
	return path, os.WriteFile(path, b, 0o644)
}

// mergeConfig sets the top-level keys of a JSON object in the config.
func (w *world) mergeConfig(doc string) error {
	var m map[string]any
	if err := json.Unmarshal([]byte(w.expand(doc)), &m); err != nil {
		return fmt.Errorf("config must be a JSON object: %w", err)
	}
	maps.Copy(w.config, m)
	return nil
}

// Placeholders expanded in step arguments and doc strings.
var (
	bigRe = regexp.MustCompile(`\{big:(\d+)\}`)
	varRe = regexp.MustCompile(`\{\{(\w+)\}\}`)
)

// expand replaces the placeholders: {uid}, {dir}, {engine_url},
// {skills_scope}, {prompts_scope}, {target} (the Rust target triple of
// this platform), {repo} (the repository's root), {compose_config} (the
// file $III_CONFIG names for a worker started as iii compose starts it),
// {big:N} (N bytes of "a"), and {{name}} (a remembered value, as JSON).
func (w *world) expand(s string) string {
	s = strings.NewReplacer(
		"{uid}", w.uid,
		"{dir}", w.dir,
		"{engine_url}", w.engineURL(),
		"{skills_scope}", w.skillsScope(),
		"{prompts_scope}", w.promptsScope(),
		"{target}", rustTarget(),
		"{repo}", repoRoot(),
		"{compose_config}", w.composeConfig,
	).Replace(s)
	s = bigRe.ReplaceAllStringFunc(s, func(m string) string {
		n, _ := strconv.Atoi(bigRe.FindStringSubmatch(m)[1])
		return strings.Repeat("a", n)
	})
	return varRe.ReplaceAllStringFunc(s, func(m string) string {
		if v, ok := w.vars[varRe.FindStringSubmatch(m)[1]]; ok {
			return v
		}
		return m
	})
}

// repoRoot is the repository's root: the parent of features/, where go
// test runs.
func repoRoot() string {
	dir, err := filepath.Abs("..")
	if err != nil {
		return ".."
	}
	return dir
}
