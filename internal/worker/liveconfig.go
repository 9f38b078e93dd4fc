package worker

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/buildinfo"
	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/diagnostics"
	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/registry"
)

// Live configuration (docs/data-path.md#live-configuration): where the
// engine has a configuration worker, the worker keeps its config in an
// entry there (initially the config it loaded from its file, unless the
// entry already holds one: an operator's or Compose's), follows its
// changes, applies the keys that can change while it serves, and reports
// the others as needing a restart. Without one, the file's config is the
// config, as before.

// liveKeys are the keys a change of the entry applies without a restart:
// the response budgets, which the registry, the MCP Skills extension and
// the client read once per answer. Every other key is reported in
// skills::diagnostics as needing a restart.
var liveKeys = []string{"max_response_bytes", "index_max_tokens", "page_size"}

const (
	// configNameEnv names the entry when set (trimmed, non-empty); else
	// it is the worker's built-in name.
	configNameEnv = "III_CONFIG_NAME"
	// configNamespace is the namespace the configuration worker's
	// functions are called in.
	configNamespace = "default"
	// configTriggerType is the configuration worker's trigger type.
	configTriggerType = "configuration"
	// configRetryDelay spaces attempts of a call that did not get through
	// (no answer, connection lost) while the connection lasts.
	configRetryDelay = 500 * time.Millisecond
)

const (
	entryName        = "Skills registry"
	entryDescription = "The skills worker's configuration (its config.yaml keys): page_size, index_max_tokens and max_response_bytes apply at once; every other key when the worker restarts."
)

// liveClient is what the live configuration needs of the engine client;
// *iii.Client satisfies it.
type liveClient interface {
	Invoke(ctx context.Context, inv iii.Invocation) (json.RawMessage, error)
	WaitConnection(ctx context.Context, previous string) (string, error)
	Connection() string
	RegisterFunction(f iii.Function)
	UnregisterFunction(id string)
	RegisterTrigger(t iii.Trigger)
	UnregisterTrigger(id string)
}

// liveConfig follows the worker's entry. Two goroutines, started by start
// and stopped by stop: one hands each new connection to the other, which
// makes every call and applies every value, one at a time.
type liveConfig struct {
	client     liveClient
	log        *zap.Logger
	id         string        // the entry's configuration id
	file       config.Config // the config the worker started with: the entry's initial value
	timeout    time.Duration // bounds each call
	apply      func(config.Config)
	functionID string // receives the entry's configuration:updated events
	triggerID  string
	wake       chan struct{} // capacity 1: the entry changed

	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	running config.Config           // the config in force
	report  *diagnostics.LiveConfig // nil while no entry is followed
	checked string                  // the last connection examined for a configuration worker
	changed chan struct{}           // closed and replaced when the fields above change

	bound          bool // functionID and triggerID are registered; follow's alone
	warnedRegister bool // the register fallback was logged; follow's alone
}

// newLiveConfig follows the entry of the worker whose config is file;
// apply puts the live keys of a new config in force.
func newLiveConfig(client liveClient, file config.Config, log *zap.Logger, apply func(config.Config)) *liveConfig {
	suffix := iii.UniqueSuffix()
	return &liveConfig{
		client: client, log: log, id: configName(), file: file, timeout: file.StateTimeout(), apply: apply,
		functionID: "skills::config::changed-" + suffix, triggerID: "skills-config-" + suffix,
		wake: make(chan struct{}, 1), running: file, changed: make(chan struct{}),
	}
}

// configName is the entry's id: $III_CONFIG_NAME, trimmed, when it is not
// empty, else the worker's built-in name.
func configName() string {
	if name := strings.TrimSpace(os.Getenv(configNameEnv)); name != "" {
		return name
	}
	return buildinfo.Name
}

// applyLive puts the live keys of cfg in force: the budgets of the
// registry, the MCP Skills extension and the client.
func (w *Worker) applyLive(cfg config.Config) {
	w.reg.SetBudgets(registry.Budgets{PageSize: cfg.PageSize, IndexMaxTokens: cfg.IndexMaxTokens, MaxResponseBytes: cfg.MaxResponseBytes})
	w.surfaces.mcp.SetBudgets(cfg.PageSize, cfg.MaxResponseBytes)
	w.client.SetMaxResultBytes(cfg.MaxResponseBytes)
}

// start runs the goroutines until ctx ends or stop.
func (l *liveConfig) start(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	l.cancel = cancel
	connections := make(chan string)
	l.wg.Add(2)
	go l.watchConnections(ctx, connections)
	go l.follow(ctx, connections)
}

// stop ends the goroutines and waits for them; it may be called without
// start.
func (l *liveConfig) stop() {
	if l.cancel != nil {
		l.cancel()
	}
	l.wg.Wait()
}

// watchConnections hands each new connection to follow.
func (l *liveConfig) watchConnections(ctx context.Context, connections chan<- string) {
	defer l.wg.Done()
	iii.FeedConnections(ctx, l.client, connections)
}

// follow ensures the entry on each connection whose engine has a
// configuration worker, then reads and applies it, and again on each of
// its changes.
func (l *liveConfig) follow(ctx context.Context, connections <-chan string) {
	defer l.wg.Done()
	current, following := "", false
	for {
		select {
		case id, ok := <-connections:
			if !ok {
				return
			}
			current = id
			following = l.attach(ctx, current)
			if following {
				l.refresh(ctx, current)
			}
		case <-l.wake:
			if following {
				l.refresh(ctx, current)
			}
		case <-ctx.Done():
			return
		}
	}
}

// attach ensures the entry on connection and subscribes to its changes;
// false when the engine has no configuration worker or the entry could
// not be ensured (the running config then stays as it is).
func (l *liveConfig) attach(ctx context.Context, connection string) bool {
	ok, err := l.ensure(ctx, connection)
	if err != nil && ctx.Err() == nil {
		l.log.Warn("could not register the configuration entry; the config stays the file's",
			zap.String("entry", l.id), zap.Error(err))
	}
	defer l.notify()
	l.mu.Lock()
	l.checked = connection
	if ok && l.report == nil {
		l.report = &diagnostics.LiveConfig{Entry: l.id}
	}
	l.mu.Unlock()
	// bound is follow's alone.
	if !ok {
		if err == nil && l.bound { // the engine of an earlier connection had one; this one has none
			l.client.UnregisterTrigger(l.triggerID)
			l.client.UnregisterFunction(l.functionID)
			l.bound = false
		}
		return false
	}
	if !l.bound {
		l.client.RegisterFunction(iii.Function{
			ID:          l.functionID,
			Description: "Internal: receives changes of this skills worker's configuration entry.",
			Metadata:    json.RawMessage(`{"internal":true}`),
			Handler:     l.onChange,
		})
		l.client.RegisterTrigger(iii.Trigger{ID: l.triggerID, Type: configTriggerType, FunctionID: l.functionID,
			Config: map[string]any{"configuration_id": l.id, "event_types": []string{"configuration:updated"}}})
		l.bound = true
	}
	return true
}

// onChange is the handler of the entry's events: it only wakes follow,
// which reads the entry, so events delivered out of order or at once
// still leave the newest value in force.
func (l *liveConfig) onChange(context.Context, iii.Request) (any, error) {
	select {
	case l.wake <- struct{}{}:
	default:
	}
	return nil, nil
}

// ensure registers the entry with the worker's schema, keeping a value
// stored there: configuration::ensure (iii 0.24); else, warned, a read
// then configuration::register, with the file's config as the value only
// where none is stored. ok is false when the engine has neither.
func (l *liveConfig) ensure(ctx context.Context, connection string) (ok bool, err error) {
	entry := map[string]any{"id": l.id, "name": entryName, "description": entryDescription,
		"schema": config.Schema(), "initial_value": config.Value(l.file)}
	_, err = l.call(ctx, connection, "configuration::ensure", entry)
	if !isFunctionNotFound(err) {
		return err == nil, err
	}
	stored, err := l.call(ctx, connection, "configuration::get", map[string]any{"id": l.id, "raw": true})
	var value struct {
		Value json.RawMessage `json:"value"`
	}
	switch {
	case isFunctionNotFound(err):
		return false, nil // no configuration worker
	case isCode(err, "NOT_FOUND"):
	case err != nil:
		return false, err
	case json.Unmarshal(stored, &value) == nil && len(value.Value) > 0 && string(value.Value) != "null":
		delete(entry, "initial_value") // register keeps the stored value
	}
	if !l.warnedRegister {
		l.warnedRegister = true
		l.log.Warn("the engine's configuration worker has no configuration::ensure (iii before 0.24); the entry is registered with configuration::register",
			zap.String("entry", l.id))
	}
	_, err = l.call(ctx, connection, "configuration::register", entry)
	return err == nil, err
}

// refresh reads the entry and applies its value.
func (l *liveConfig) refresh(ctx context.Context, connection string) {
	res, err := l.call(ctx, connection, "configuration::get", map[string]any{"id": l.id})
	if err != nil {
		var ie *iii.Error
		if errors.As(err, &ie) && ie.Code == "SCHEMA_INVALID" {
			l.refuse(ie.Message)
		} else if ctx.Err() == nil {
			l.log.Warn("could not read the configuration entry; the running config stays as it was",
				zap.String("entry", l.id), zap.Error(err))
		}
		return
	}
	var got struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(res, &got); err != nil || len(got.Value) == 0 || string(got.Value) == "null" {
		l.refuse("the entry holds no value (configuration::get answered " + ids.Clip(string(res)) + ")")
		return
	}
	l.applyValue(got.Value)
}

// applyValue puts value in force: a value that does not read as a valid
// config is refused and the running config stays; otherwise its live
// keys apply at once and the others are reported as needing a restart.
func (l *liveConfig) applyValue(value json.RawMessage) {
	desired, err := config.ParseValue(value)
	if err != nil {
		l.refuse(err.Error())
		return
	}
	desired.Dir = l.file.Dir // relative paths mean what they meant in the file
	for _, u := range desired.UnknownKeys {
		msg := "unknown key `" + u.Key + "` in the configuration entry is ignored"
		if u.Suggestion != "" {
			msg += "; did you mean `" + u.Suggestion + "`?"
		}
		l.log.Warn(msg, zap.String("entry", l.id))
	}
	l.mu.Lock()
	next := l.running
	var applied []string
	for _, key := range config.Changed(l.running, desired) {
		if slices.Contains(liveKeys, key) {
			setLiveKey(&next, desired, key)
			applied = append(applied, key)
		}
	}
	l.running = next
	restart := config.Changed(next, desired)
	l.report.Applied = config.Changed(l.file, next)
	l.report.RestartNeeded = restart
	l.report.Refused = ""
	l.mu.Unlock()
	if len(applied) > 0 {
		l.apply(next)
		l.log.Info("configuration entry applied", zap.String("entry", l.id), zap.Strings("keys", applied))
	}
	if len(restart) > 0 {
		l.log.Warn("configuration entry has keys that apply only when the worker restarts", zap.String("entry", l.id), zap.Strings("keys", restart))
	}
	l.notify()
}

// setLiveKey copies key, one of liveKeys, from src to dst.
func setLiveKey(dst *config.Config, src config.Config, key string) {
	switch key {
	case "page_size":
		dst.PageSize = src.PageSize
	case "index_max_tokens":
		dst.IndexMaxTokens = src.IndexMaxTokens
	case "max_response_bytes":
		dst.MaxResponseBytes = src.MaxResponseBytes
	}
}

// refuse logs why the entry's value was refused and reports it; the
// running config stays as it was.
func (l *liveConfig) refuse(reason string) {
	l.log.Warn("configuration entry refused; the running config stays as it was",
		zap.String("entry", l.id), zap.String("reason", reason))
	l.mu.Lock()
	l.report.Refused = reason
	l.mu.Unlock()
	l.notify()
}

// call invokes a configuration function in the default namespace,
// retrying one that did not get through while connection lasts.
func (l *liveConfig) call(ctx context.Context, connection, fn string, data any) (json.RawMessage, error) {
	for {
		res, err := l.client.Invoke(ctx, iii.Invocation{FunctionID: fn, Data: data, Namespace: configNamespace, Timeout: l.timeout})
		var ie *iii.Error
		if err == nil || errors.As(err, &ie) {
			return res, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(configRetryDelay):
		}
		if l.client.Connection() != connection {
			return nil, err
		}
	}
}

func isFunctionNotFound(err error) bool { return isCode(err, iii.CodeFunctionNotFound) }

func isCode(err error, code string) bool {
	var ie *iii.Error
	return errors.As(err, &ie) && ie.Code == code
}

// status is the report for skills::diagnostics: nil while no entry is
// followed.
func (l *liveConfig) status() *diagnostics.LiveConfig {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.report == nil {
		return nil
	}
	r := *l.report
	r.Applied, r.RestartNeeded = slices.Clone(r.Applied), slices.Clone(r.RestartNeeded)
	return &r
}

func (l *liveConfig) notify() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.notifyLocked()
}

func (l *liveConfig) notifyLocked() {
	close(l.changed)
	l.changed = make(chan struct{})
}
