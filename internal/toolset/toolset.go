// Package toolset serves the typed tools of the SKILL.md files on disk as
// iii functions (docs/decisions.md D34, D36): a tool becomes the function
// <skill-name>::<tool> while its file's sha256 is approved in tools.lock,
// and stops being one the moment the file changes or the approval is
// revoked. Only files the overlay found on disk (globs and roots) are
// considered: a skill registered over the protocol never runs anything.
package toolset

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/tools"
)

// Registrar is what the set needs of the engine client.
type Registrar interface {
	RegisterFunction(f iii.Function)
	UnregisterFunction(id string)
}

// DefaultLockPoll is how often tools.lock is checked for a change when
// Options.LockPoll is zero: an approval takes effect well within a second.
const DefaultLockPoll = 250 * time.Millisecond

// Options configure a Set.
type Options struct {
	Registrar Registrar
	Runner    *tools.Runner
	LockPath  string
	Logger    *zap.Logger
	// LockPoll is how often tools.lock is checked for a change; zero
	// means DefaultLockPoll.
	LockPoll time.Duration
	// ReadFile reads a listed SKILL.md: the overlay's Source.ReadFile,
	// which refuses a file that lies outside the roots once opened (it
	// may have been swapped for a link since it was listed). Default:
	// catalog.ReadFile, which knows no roots.
	ReadFile func(path string) ([]byte, error)
}

// Set keeps the functions of the approved tools in step with the files
// and the lock. Create it with New, feed it the overlay's skills with
// Sync, Start it to follow the lock, Close it to stop.
type Set struct {
	opts Options
	log  *zap.Logger

	mu     sync.Mutex
	skills []catalog.FileSkill
	lock   tools.Lock
	stamp  lockStamp
	served map[string]string // function id -> sha256 of the file it came from
	report []Entry           // the last sync's view, for list and diagnostics

	cancel context.CancelFunc
	done   chan struct{}
}

// New returns a Set; it registers nothing until Sync.
func New(opts Options) *Set {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.LockPoll <= 0 {
		opts.LockPoll = DefaultLockPoll
	}
	if opts.ReadFile == nil {
		opts.ReadFile = catalog.ReadFile
	}
	s := &Set{opts: opts, log: opts.Logger, served: map[string]string{}}
	s.reloadLockLocked()
	return s
}

// Start follows tools.lock until Close.
func (s *Set) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel, s.done = cancel, make(chan struct{})
	go func() {
		defer close(s.done)
		t := time.NewTicker(s.opts.LockPoll)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				s.mu.Lock()
				if !s.stamp.same(stampLock(s.opts.LockPath)) {
					s.reloadLockLocked()
					s.syncLocked()
				}
				s.mu.Unlock()
			}
		}
	}()
}

// Close stops following the lock.
func (s *Set) Close() {
	if s.cancel != nil {
		s.cancel()
		<-s.done
	}
}

// Sync takes the overlay's current skills and serves the approved tools
// among them.
func (s *Set) Sync(skills []catalog.FileSkill) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.skills = skills
	if !s.stamp.same(stampLock(s.opts.LockPath)) {
		s.reloadLockLocked()
	}
	s.syncLocked()
}

// Entries is what the last sync found, by skill id.
func (s *Set) Entries() []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.report)
}

func (s *Set) reloadLockLocked() {
	s.stamp = stampLock(s.opts.LockPath)
	lock, err := tools.ReadLock(s.opts.LockPath)
	if err != nil {
		s.log.Warn("tools.lock cannot be read; no tool runs until it can", zap.String("path", s.opts.LockPath), zap.Error(err))
		lock = tools.Lock{Approved: map[string]tools.Approval{}}
	}
	s.lock = lock
}

// reservedNames are skill names whose functions would land in a namespace
// the engine or this worker owns (the recursion guard's, D2).
var reservedNames = contract.ReservedSkillNames()

// syncLocked works out the functions the files and the lock call for,
// then registers and unregisters the difference.
func (s *Set) syncLocked() {
	want := map[string]iii.Function{}
	sums := map[string]string{}
	report := Classify(s.skills, s.opts.ReadFile, s.lock)
	for _, e := range report {
		for _, t := range e.serve {
			id := e.Skill.Name + "::" + t.Name
			want[id] = s.function(id, e.Skill, t, e.Path)
			sums[id] = e.Sum
		}
	}
	for id, sum := range s.served {
		if sums[id] != sum {
			s.opts.Registrar.UnregisterFunction(id)
			delete(s.served, id)
			s.log.Info("tool function unregistered", zap.String("function_id", id))
		}
	}
	for id, f := range want {
		if _, ok := s.served[id]; ok {
			continue
		}
		s.opts.Registrar.RegisterFunction(f)
		s.served[id] = sums[id]
		s.log.Info("tool function registered", zap.String("function_id", id))
	}
	before := map[string]Entry{}
	for _, e := range s.report {
		before[e.Path] = e
	}
	for _, e := range report {
		if prev, ok := before[e.Path]; ok && prev.Status == e.Status && prev.Reason == e.Reason {
			continue // said already
		}
		switch {
		case e.Status == tools.StatusInvalid:
			s.log.Warn("tool skill skipped: its tools do not parse", zap.String("id", e.ID), zap.String("path", e.Path), zap.String("reason", e.Reason))
		case e.Status == tools.StatusChanged:
			s.log.Warn("tool skill changed since it was approved; its tools are not served until it is approved again (skills tools approve)", zap.String("id", e.ID), zap.String("path", e.Path))
		case e.Status == tools.StatusPending:
			s.log.Info("tool skill awaits approval (skills tools approve)", zap.String("id", e.ID), zap.String("path", e.Path))
		case e.Reason != "":
			s.log.Warn("approved tool skill not served", zap.String("id", e.ID), zap.String("path", e.Path), zap.String("reason", e.Reason))
		}
	}
	s.report = report
}

// function is the iii function of one approved tool.
func (s *Set) function(id string, sk tools.Skill, t tools.Tool, path string) iii.Function {
	meta := map[string]any{
		"tool": map[string]any{"skill": sk.Name, "read_only": sk.ReadOnly, "always_ask": sk.AlwaysAsk,
			"network": sk.Network, "version": sk.Version},
		"mcp":        map[string]any{"expose": true, "annotations": map[string]any{"readOnlyHint": sk.ReadOnly}},
		"mcp.expose": true,
	}
	dir := filepath.Dir(path)
	runner := s.opts.Runner
	return iii.Function{
		ID:             id,
		Description:    t.Description,
		RequestFormat:  mustJSON(tools.InputSchema(t.Params)),
		ResponseFormat: envelopeSchema,
		Metadata:       mustJSON(meta),
		Handler: func(ctx context.Context, req iii.Request) (any, error) {
			values, err := tools.Check(t.Params, withoutCaller(req.Data))
			if err != nil {
				return nil, err
			}
			args, err := t.Command.Args(t.Params, values)
			if err != nil {
				return nil, err
			}
			return runner.Run(ctx, tools.Call{Skill: sk.Name, Dir: dir, Program: t.Command.Program(),
				Args: args, Timeout: sk.Timeout}), nil
		},
	}
}

// withoutCaller drops the _caller_worker_id the engine adds to a payload,
// which is not an argument of the tool.
func withoutCaller(data json.RawMessage) json.RawMessage {
	var fields map[string]json.RawMessage
	if json.Unmarshal(data, &fields) != nil {
		return data
	}
	if _, ok := fields["_caller_worker_id"]; !ok {
		return data
	}
	delete(fields, "_caller_worker_id")
	return mustJSON(fields)
}

// envelopeSchema is the JSON Schema of a tool call's result (D39).
var envelopeSchema = mustJSON(map[string]any{
	"type": "object",
	"properties": map[string]any{
		"success":     map[string]any{"type": "boolean"},
		"exit_code":   map[string]any{"type": "integer", "description": "-1 when the command has none (timeout, signal, not started)"},
		"output":      map[string]any{"type": "string", "description": "stdout and stderr merged; the first and last 2 KiB when longer"},
		"truncated":   map[string]any{"type": "boolean"},
		"duration_ms": map[string]any{"type": "integer"},
		"parsed":      map[string]any{"description": "the output, when it is all JSON"},
		"error":       map[string]any{"type": "string"},
	},
	"required": []string{"success", "exit_code", "output", "truncated", "duration_ms"},
})

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// lockStamp tells whether tools.lock changed: its stamp, or missing.
type lockStamp struct {
	stamp   catalog.Stamp
	present bool
}

func (l lockStamp) same(o lockStamp) bool {
	return l.present == o.present && l.stamp.Equal(o.stamp)
}

func stampLock(path string) lockStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return lockStamp{}
	}
	return lockStamp{stamp: catalog.StampOf(fi), present: true}
}
