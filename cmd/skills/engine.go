package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/engine"
)

// engineFlags are the flags shared by "skills engine" and "skills dev".
type engineFlags struct {
	host  string
	port  int
	data  string
	state string // a Redis URL (D71), exclusive with data
	// pubsub is --pubsub (D75): "" follows --state, "none", "local" or a
	// Redis URL.
	pubsub string
	// shape is skills engine's alone; its zero value is the 0.22.1
	// engine skills dev and skills mcp --dev run.
	shape engineShape
}

func (f *engineFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.host, "host", "127.0.0.1", "interface the local engine listens on")
	fs.IntVar(&f.port, "port", 49134, "port the local engine listens on (the iii default is 49134)")
	fs.StringVar(&f.data, "data", "", "keep state in DIR/state.log across restarts, each write on disk before it is acknowledged (default: in memory, lost on exit)")
	fs.StringVar(&f.state, "state", "", "keep state in Redis, redis://host:port[/db], laid out as iii's Redis state adapter, so engines on one Redis share it (instead of --data)")
	fs.StringVar(&f.pubsub, "pubsub", "", "give the engine iii's pubsub worker (publish, the subscribe trigger type): local, redis://host:port[/db] (engines on one Redis hear each other's publishes) or none (default: the --state Redis when there is one, else none)")
}

// pubsubNone is --pubsub's value for an engine without a pubsub worker.
const pubsubNone = "none"

// pubsubAdapter is engine.Options.PubSub as the flags decide it: with
// --state in Redis and no --pubsub, the same Redis, since engines that
// share state need each other's signals (D75).
func (f *engineFlags) pubsubAdapter() string {
	switch f.pubsub {
	case "":
		return f.state
	case pubsubNone:
		return ""
	}
	return f.pubsub
}

func (f *engineFlags) validate(name string) error {
	if f.port < 0 || f.port > 65535 {
		return usagef("%s: --port must be between 0 and 65535, got %d", name, f.port)
	}
	if f.state != "" && f.data != "" {
		return usagef("%s: --state and --data both say where state lives: give one (--state redis://host:port[/db] or --data DIR)", name)
	}
	if f.state != "" {
		if err := engine.CheckStateURL(f.state); err != nil {
			return usagef("%s: --state: %v", name, err)
		}
	}
	if f.pubsub != pubsubNone {
		if err := engine.CheckPubSub(f.pubsub); err != nil {
			return usagef("%s: --pubsub: %v, or none", name, err)
		}
	}
	return nil
}

func (f *engineFlags) addr() string { return net.JoinHostPort(f.host, strconv.Itoa(f.port)) }

// startEngine starts the local engine and says in the log where its state
// lives and how to reach it.
func startEngine(ctx context.Context, f engineFlags, log *zap.Logger) (*engine.Engine, error) {
	switch {
	case f.state != "":
		log.Info("state is kept in Redis, a hash state:<scope> per scope; a write is acknowledged once Redis answered it", zap.String("state", engine.RedactStateURL(f.state)))
	case f.data != "":
		log.Info("state is kept in "+filepath.Join(f.data, engine.StateLog)+"; a write is acknowledged once it is on disk", zap.String("data", f.data))
	default:
		log.Info("state is in memory and lost when this process ends; --data DIR or --state redis://host:port keeps it")
	}
	opts := f.shape.options()
	opts.Logger, opts.DataDir, opts.StateURL, opts.PubSub = log.Named("engine"), f.data, f.state, f.pubsubAdapter()
	switch opts.PubSub {
	case "":
	case engine.PubSubLocal:
		log.Info("pubsub (publish, subscribe) delivers within this engine")
	default:
		log.Info("pubsub (publish, subscribe) goes through Redis: engines on it hear each other's publishes", zap.String("pubsub", engine.RedactStateURL(opts.PubSub)))
	}
	srv, err := engine.Start(ctx, f.addr(), opts)
	if err != nil {
		if _, ok := errors.AsType[*engine.StateFileError](err); ok {
			return nil, err
		}
		if _, ok := errors.AsType[*engine.DataDirInUseError](err); ok {
			return nil, err
		}
		return nil, fmt.Errorf("start local engine on %s (is another engine already using the port? pick one with --port): %w", f.addr(), err)
	}
	log.Info("local iii engine listening; point workers at it with III_URL", zap.String("url", srv.URL()))
	return srv, nil
}

// engineCommand is "skills engine": the local engine alone, for workers
// written with any iii SDK.
type engineCommand struct{ io stdio }

const engineUsage = `Usage: skills engine [flags]

Runs the project's local iii engine (WebSocket worker protocol; state in
memory, kept in --data DIR, or in Redis with --state redis://host:port[/db])
until interrupted.

By default it is the iii 0.22.1 engine. --like 0.23 or 0.24 gives it the
later engines' shapes, to try a namespaced (iii compose) deployment
locally: workers register in the namespace their III_NAMESPACE names, and
skills call and skills mcp take --namespace.

  skills engine --like 0.24 --state-in shop     the shop project runs its own state worker
  skills engine --like 0.24 --state-after 5s    the state worker registers after the workers

Flags:
`

// Run serves the engine until ctx is cancelled.
func (c engineCommand) Run(ctx context.Context, args []string) error {
	fs := pflag.NewFlagSet("skills engine", pflag.ContinueOnError)
	var ef engineFlags
	ef.register(fs)
	ef.shape.register(fs)
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	if help, err := parseFlags(fs, args, engineUsage, c.io); help || err != nil {
		return err
	}
	if err := ef.validate(fs.Name()); err != nil {
		return err
	}
	if err := ef.shape.validate(fs.Name()); err != nil {
		return err
	}
	log, err := newLogger(fs.Name(), *logLevel, c.io.out)
	if err != nil {
		return err
	}
	defer log.Sync() //nolint:errcheck // best effort on exit
	srv, err := startEngine(ctx, ef, log)
	if err != nil {
		return fmt.Errorf("%s: %w", fs.Name(), err)
	}
	defer srv.Close()
	if ef.shape.like != like022 {
		log.Info("the local engine behaves as iii "+ef.shape.like, zap.Bool("namespaces", true), zap.Bool("configuration", true),
			zap.Bool("state_list_entries", ef.shape.like == like024), zap.Strings("state_in", ef.shape.stateIn),
			zap.Duration("state_after", ef.shape.stateAfter))
	}
	if wait := ef.shape.stateAfter; wait > 0 {
		// The state workers register late, as iii 0.24's, a worker of its
		// own, may; unless the engine stops first.
		timer := time.NewTimer(wait)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-ctx.Done():
			log.Info("local engine shutting down")
			return nil
		}
	}
	if err := ef.shape.startStates(srv, log); err != nil {
		return fmt.Errorf("%s: %w", fs.Name(), err)
	}
	<-ctx.Done()
	log.Info("local engine shutting down")
	return nil
}

// The iii engines skills engine --like can behave as.
const (
	like022 = "0.22"
	like023 = "0.23"
	like024 = "0.24"
)

// engineShape is what skills engine makes the local engine look like
// (docs/engine.md): the iii release whose shapes it takes, the
// namespaces that run a state worker of their own, and how long after
// the start the state workers register. Its zero value is today's
// engine: 0.22.1.
type engineShape struct {
	like       string
	stateIn    []string
	stateAfter time.Duration
}

func (s *engineShape) register(fs *pflag.FlagSet) {
	fs.StringVar(&s.like, "like", like022, "the iii engine to behave as: 0.22 (0.22.1: no namespaces), 0.23 (namespaces and a configuration worker) or 0.24 (also the paged state::list_entries)")
	fs.StringArrayVar(&s.stateIn, "state-in", nil, "with --like 0.23 or 0.24: give namespace NS a state worker of its own, as an iii compose project's state container (repeat for more)")
	fs.DurationVar(&s.stateAfter, "state-after", 0, "with --like 0.24: the state workers register this long after the engine starts, as 0.24's state worker, a worker of its own, may (0: at once)")
}

// validate names a shape the engine cannot take, and what it can.
func (s *engineShape) validate(name string) error {
	if s.like == "" {
		s.like = like022
	}
	switch s.like {
	case like022, like023, like024:
	default:
		return usagef("%s: --like %q: give 0.22 (the default), 0.23 or 0.24", name, s.like)
	}
	for _, ns := range s.stateIn {
		switch {
		case s.like == like022:
			return usagef("%s: --state-in %q needs namespaces, which iii 0.22 has not: add --like 0.23 or 0.24", name, ns)
		case strings.TrimSpace(ns) == "":
			return usagef("%s: --state-in %q is blank: name a namespace, such as shop", name, ns)
		case ns == engine.DefaultNamespace:
			return usagef("%s: --state-in default: the default namespace's state worker is the engine's own, always there (with --like 0.24, --state-after delays it)", name)
		}
	}
	switch {
	case s.stateAfter < 0:
		return usagef("%s: --state-after %s is negative: give a duration such as 5s, or 0 for at once", name, s.stateAfter)
	case s.stateAfter > 0 && s.like != like024:
		return usagef("%s: --state-after %s: only iii 0.24 runs state as a worker of its own, which may register late; add --like 0.24", name, s.stateAfter)
	}
	return nil
}

// stateWindow is how many state events one binding may have in flight:
// iii overlaps them without bound; one at a time, replicas of a worker
// fell seconds behind a few thousand writes a second (docs/decisions.md
// D72).
const stateWindow = 64

// options are the engine's options for the shape.
func (s engineShape) options() engine.Options {
	later := s.like == like023 || s.like == like024
	return engine.Options{
		Namespaces:       later,
		StateWindow:      stateWindow,
		Configuration:    later,
		StateListEntries: s.like == like024,
		StateWorkerLate:  s.stateAfter > 0,
	}
}

// startStates registers the state workers the shape starts: the default
// namespace's, when it starts late, and one in each --state-in namespace.
func (s engineShape) startStates(srv *engine.Engine, log *zap.Logger) error {
	if s.stateAfter > 0 {
		srv.StartState()
	}
	for _, ns := range s.stateIn {
		if err := srv.StartStateIn(ns); err != nil {
			return err
		}
	}
	if s.stateAfter > 0 || len(s.stateIn) > 0 {
		log.Info("state workers registered", zap.Strings("namespaces", s.stateIn), zap.Bool("default", s.stateAfter > 0))
	}
	return nil
}
