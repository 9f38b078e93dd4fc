// Package registry is the 0.2 surface of the skills worker: markdown skills
// served as iii://{id}, the iii://skills index, function-backed sections at
// iii://fn/…, the batched fetch tool and slash-command prompts — the
// functions of 0.2 (Functions; ExampleRegistry_Functions lists them), with
// their ids, URIs, index and resolver. It reads and writes skills and prompts only through
// the catalog's content view (docs/data-path.md#the-content-view), which
// owns state::*; it reaches the engine otherwise only through the Caller
// (section and prompt handlers) and Notifier interfaces. The surfaces
// added after 0.2 are packages of their own over the same view: roots,
// search (skill::search), diagnostics and mcpskills.
//
// Behaviour follows the Rust worker (docs/reference.md) as amended by the
// decisions in docs/decisions.md.
package registry

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/iii"
)

// Config is what a Registry needs. Zero scopes, timeout, logger and clock
// take the config defaults (package config); Caller is required.
type Config struct {
	SkillsScope  string        // state scope of skill rows; default "skills"
	PromptsScope string        // state scope of prompt rows; default "prompts"
	StateTimeout time.Duration // bound on every state call and handler trigger; default 10 s

	// FS is the filesystem overlay; nil means none. The registry never
	// reads it: it is handed to the view built when View is nil.
	FS *catalog.FileSource
	// FSCacheBytes bounds the fs skill bodies kept in memory (each checked
	// against its file's Stamp on every read); 0 keeps none.
	FSCacheBytes int64
	// FSWatch, when set, is a started watch over FS: listings and reads use
	// its snapshot instead of globbing on every call (docs/decisions.md D20).
	FSWatch *catalog.FileWatch

	// Caller reaches state::* and the functions behind sections and prompts.
	Caller Caller

	// SkillsChanged and PromptsChanged announce successful mutations on
	// skills::on-change and prompts::on-change; nil means nobody listens.
	SkillsChanged  Notifier
	PromptsChanged Notifier

	// SkillsMirror and PromptsMirror are the catalog's mirrors of the two
	// scopes (package catalog); nil means every call goes to the engine.
	SkillsMirror  *catalog.Scope
	PromptsMirror *catalog.Scope

	// View, when set, is the content view the registry serves (built by
	// the composition root and shared with the other surfaces); nil builds
	// one from the fields above.
	View *catalog.View

	// IndexMaxTokens bounds iii://skills (bytes/4): deeper levels fold
	// first; 0 is no bound (D44).
	IndexMaxTokens int

	// RevisionsKept is how many bodies per stored skill the history keeps
	// for the view built when View is nil; 0 keeps no history (D83).
	RevisionsKept int

	// PageSize is how many entries a resources-list or mcp-list answer
	// holds; 0 is everything (D43).
	PageSize int

	// MaxResponseBytes bounds every response the registry builds
	// (docs/decisions.md D26); zero means 16 MiB.
	MaxResponseBytes int

	Logger *zap.Logger      // default: no logging
	Now    func() time.Time // clock for registered_at; default time.Now
}

// Caller makes synchronous calls to engine functions. A nil result means
// the function answered with no result or with null (state::get of a
// missing key answers with no result at all). Remote failures are
// *iii.Error. The iii client satisfies it.
type Caller interface {
	Call(ctx context.Context, functionID string, data any) (json.RawMessage, error)
}

// Notifier fans a payload out to the subscribers of one trigger type
// (skills::on-change or prompts::on-change) without waiting for them, and
// returns how many it reached. The iii client's trigger-type provider
// satisfies it.
type Notifier interface {
	Fire(ctx context.Context, payload any) int
}

// Registry serves the skills and prompts registries. Its handlers may run
// concurrently: its only mutable state is the last index text,
// resources-list and mcp-list answer rendered, the skills::list and index
// answers encoded, each kept with the view's
// version it came from (D19), and nothing is locked across engine calls
// (concurrent writes to one id are last-writer-wins in state, as with the
// Rust worker).
type Registry struct {
	timeout        time.Duration
	caller         Caller
	skillsChanged  Notifier
	promptsChanged Notifier
	log            *zap.Logger
	now            func() time.Time
	view           *catalog.View
	indexCache     versionCache[string]
	indexAnswer    versionCache[iii.Encoded] // the iii://skills read, encoded (encoded.go)
	listAnswer     versionCache[iii.Encoded] // skills::list, encoded
	// listRevisionAnswer is skills::list with revisions (D83), encoded.
	listRevisionAnswer versionCache[iii.Encoded]
	resourcesCache     versionCache[resourcesListOutput]
	mcpListCache       versionCache[mcpListOutput]
	limits             atomic.Pointer[Budgets] // SetBudgets's; never nil
}

// New returns a Registry for cfg. It panics if cfg.Caller is nil: that is
// a wiring mistake, caught at start-up.
func New(cfg Config) *Registry {
	if cfg.Caller == nil {
		panic("registry: Config.Caller is required")
	}
	if cfg.SkillsScope == "" {
		cfg.SkillsScope = config.DefaultSkillsScope
	}
	if cfg.PromptsScope == "" {
		cfg.PromptsScope = config.DefaultPromptsScope
	}
	if cfg.StateTimeout <= 0 {
		cfg.StateTimeout = config.DefaultStateTimeoutMS * time.Millisecond
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxResponseBytes <= 0 {
		cfg.MaxResponseBytes = config.DefaultMaxResponseBytes
	}
	if cfg.View == nil {
		cfg.View = catalog.NewView(catalog.ViewConfig{
			Skills: cfg.SkillsMirror, Prompts: cfg.PromptsMirror, Caller: cfg.Caller,
			SkillsScope: cfg.SkillsScope, PromptsScope: cfg.PromptsScope, Timeout: cfg.StateTimeout,
			Source: cfg.FS, Watch: cfg.FSWatch, BodyCacheBytes: cfg.FSCacheBytes, RevisionsKept: cfg.RevisionsKept,
		})
	}
	r := &Registry{
		timeout:        cfg.StateTimeout,
		caller:         cfg.Caller,
		skillsChanged:  cfg.SkillsChanged,
		promptsChanged: cfg.PromptsChanged,
		log:            cfg.Logger,
		now:            cfg.Now,
		view:           cfg.View,
	}
	r.SetBudgets(Budgets{PageSize: cfg.PageSize, IndexMaxTokens: cfg.IndexMaxTokens, MaxResponseBytes: cfg.MaxResponseBytes})
	return r
}

// trigger calls an upstream function with the state timeout; a failure is
// an unavailable error "trigger <id>: <cause>".
func (r *Registry) trigger(ctx context.Context, functionID string, payload any) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	res, err := r.caller.Call(ctx, functionID, payload)
	if err != nil {
		return nil, contract.Unavailable("trigger "+functionID, err)
	}
	return res, nil
}

// notify fires a change event. It is detached from the caller's context:
// the fan-out is fire-and-forget and must not be cut short when the
// handler returns.
func (r *Registry) notify(ctx context.Context, n Notifier, payload any) {
	if n == nil {
		return
	}
	n.Fire(context.WithoutCancel(ctx), payload)
}

// View is the merged picture of the skills the registry serves (package
// catalog): every listing reads it.
func (r *Registry) View() *catalog.View { return r.view }

// skillListing is the view now; a state failure is an unavailable error.
func (r *Registry) skillListing(ctx context.Context) (catalog.Listing, error) {
	return r.view.Skills(ctx)
}
