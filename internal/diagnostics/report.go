// Package diagnostics is the report an operator reads instead of the logs
// (docs/decisions.md D42): every file found and what became of it, the
// roots, the tool skills, the catalog, the engine link, the watch and the
// reads per skill. skills::diagnostics answers it over the protocol
// (Diagnoser, over the content view; it also logs the boot scan);
// `skills doctor` prints it offline, where the engine parts are absent.
package diagnostics

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/iii-hq/skills-go/internal/catalog"
)

// File statuses.
const (
	Loaded   = "loaded"
	Skipped  = "skipped"
	Shadowed = "shadowed"
	Warning  = "warning"
)

// Root statuses.
const (
	RootOK      = "ok"
	RootMissing = "missing"
	RootError   = "error"
)

// Config statuses.
const (
	ConfigLoaded  = "loaded"  // the file was read
	ConfigDefault = "default" // no file at the default path: the defaults apply, as the worker's
	ConfigMissing = "missing" // the file named with --config does not exist
	ConfigInvalid = "invalid" // the file is not YAML keys: the defaults apply, as the worker's
)

// Report is the whole diagnosis. Fields may be added.
type Report struct {
	Config *ConfigFile `json:"config,omitempty"` // absent from skills::diagnostics
	// ConfigProblems are the config file's keys whose values could not
	// be used, each kept at its default (D66).
	ConfigProblems []ConfigProblem `json:"config_problems,omitempty"`
	// Unmatched are the config's globs and roots that find nothing: a
	// warning each, not a problem (D66).
	Unmatched []Unmatched       `json:"unmatched,omitempty"`
	Files     []File            `json:"files"`
	Roots     []Root            `json:"roots"`
	Tools     []Tool            `json:"tools"`
	Catalog   *Catalog          `json:"catalog,omitempty"` // absent offline
	Engine    *Engine           `json:"engine,omitempty"`  // absent offline
	Watch     Watch             `json:"watch"`
	Reads     map[string]uint64 `json:"reads"`
	// ReadsOmitted is how many skills have a read count beside the
	// ReportedReads most read that Reads holds (D64).
	ReadsOmitted int         `json:"reads_omitted,omitempty"`
	Search       *Search     `json:"search,omitempty"`      // absent offline and without an embedder
	Live         *LiveConfig `json:"live_config,omitempty"` // absent offline and without the engine's configuration worker
	Lint         *Lint       `json:"lint,omitempty"`        // the content checks (D65)
	// Availability is what the skills require of the live engine and
	// what it lacks (D85).
	Availability *Availability `json:"availability,omitempty"`
	// FileChanges are the digest changes of the skill files served, newest
	// first, the last catalog.KeptFileChanges; FileChangesOmitted counts
	// the older ones (D86). Absent offline and until a file changes.
	FileChanges        []catalog.FileChange `json:"file_changes,omitempty"`
	FileChangesOmitted uint64               `json:"file_changes_omitted,omitempty"`
}

// Search is how skill::search ranks, when it has more than the lexical
// index (docs/decisions.md D50).
type Search struct {
	Embedder *Embedder `json:"embedder,omitempty"`
}

// Embedder is the configured embedder: ok, or failing since its last call
// failed (searches then answer lexically); the documents with a vector
// and those waiting for one; the vectors' length; the last failure.
type Embedder struct {
	Function    string `json:"function"`
	State       string `json:"state"` // ok or failing
	Vectors     int    `json:"vectors"`
	Waiting     int    `json:"waiting"`
	Dimension   int    `json:"dimension"`
	LastError   string `json:"last_error,omitempty"`
	LastErrorAt string `json:"last_error_at,omitempty"` // RFC 3339
}

// ConfigFile is the config file skills doctor read.
type ConfigFile struct {
	Path        string       `json:"path"`
	Status      string       `json:"status"`
	Reason      string       `json:"reason,omitempty"`
	UnknownKeys []UnknownKey `json:"unknown_keys,omitempty"`
}

// UnknownKey is a key of the config file the worker does not read (most
// often a misspelling, whose setting then does not apply).
type UnknownKey struct {
	Key    string `json:"key"`
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

// ConfigProblem is a key of the config file whose value could not be
// used: the key kept its default, the rest of the file applies (D66).
type ConfigProblem struct {
	Key    string `json:"key"`
	Line   int    `json:"line,omitempty"`
	Reason string `json:"reason"` // the value, what is allowed, and that the default applies
}

// File is one file the globs and roots found.
type File struct {
	Path   string `json:"path"`
	ID     string `json:"id,omitempty"`
	Kind   string `json:"kind"` // skill or prompt
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}

// Root is one configured root.
type Root struct {
	Path   string `json:"path"`
	Status string `json:"status"`
	Skills int    `json:"skills"`
	Reason string `json:"reason,omitempty"`
}

// Tool is one tool of a tool skill.
type Tool struct {
	Skill  string `json:"skill"`
	Tool   string `json:"tool"`
	Status string `json:"status"` // approved, pending, changed, invalid
	Reason string `json:"reason,omitempty"`
}

// Catalog is the in-memory catalog's state.
type Catalog struct {
	Skills      int    `json:"skills"`
	Prompts     int    `json:"prompts"`
	Bytes       int64  `json:"bytes"` // skill bodies kept
	CacheBytes  int64  `json:"cache_bytes"`
	CacheHits   uint64 `json:"cache_hits"`
	CacheMisses uint64 `json:"cache_misses"`
	Mode        string `json:"mode,omitempty"` // live or read-through
	// BodyStore says why the skill bodies are kept in memory rather than
	// in the body store's file (docs/decisions.md D54); absent while the
	// file is in use.
	BodyStore string `json:"body_store,omitempty"`
	// HeapBodies and HeapBytes count the skill bodies kept on the heap
	// because the body store refused them (BodyStore says why); the rest
	// of Bytes is in its file (docs/decisions.md D79). Absent while the
	// file is in use.
	HeapBodies int   `json:"heap_bodies,omitempty"`
	HeapBytes  int64 `json:"heap_bytes,omitempty"`
	// Unloaded is true while the catalog is live but its skills are not
	// loaded on the current connection (a load in flight or to come, or a
	// scope the engine could not list): Skills and Bytes are then what
	// was held before, and reads go to the engine (docs/decisions.md
	// D79). Absent once loaded.
	Unloaded bool `json:"unloaded,omitempty"`
	// Freshness says how current the mirror of the stored rows is
	// (docs/decisions.md D73); absent offline.
	Freshness *Freshness `json:"freshness,omitempty"`
}

// Freshness is when the catalog last loaded and reconciled its scopes,
// and where the changes other writers made were found: by a state event,
// by a reconcile (a write no event announced: another engine's), or by a
// load after the first (a reconnect). Times are RFC 3339, absent until
// the first.
type Freshness struct {
	LastLoad           string `json:"last_load,omitempty"`
	LastReconcile      string `json:"last_reconcile,omitempty"`
	ReconcileMS        int64  `json:"reconcile_ms"` // the interval; 0: no reconcile
	Reconciles         uint64 `json:"reconciles"`
	ReconcileBytes     int64  `json:"reconcile_bytes"`   // listed by the last pass
	ReconcileTookMS    int64  `json:"reconcile_took_ms"` // the last pass's time
	ChangesByEvent     uint64 `json:"changes_by_event"`
	ChangesByReconcile uint64 `json:"changes_by_reconcile"`
	ChangesByLoad      uint64 `json:"changes_by_load"`
	// Signal is "pubsub" while the engine offers iii's pubsub, through
	// which replicas on other engines tell this one of their changes
	// within a round trip, else "none": the reconcile alone finds them
	// (docs/decisions.md D75).
	Signal          string `json:"signal"`
	ChangesBySignal uint64 `json:"changes_by_signal"`
}

// Engine is the link to the engine.
type Engine struct {
	Connected    bool `json:"connected"`
	StateTrigger bool `json:"state_trigger"`
}

// Watch is how the files are followed.
type Watch struct {
	Mode string `json:"mode"` // fsnotify, poll or off
}

// Problems counts what an operator should look at: a config file named
// but missing or not YAML keys, unknown config keys, config values that
// fell back to their defaults, files skipped, roots that exist but
// cannot be read, invalid tool skills.
func (r Report) Problems() int {
	n := len(r.ConfigProblems)
	if r.Config != nil {
		n += len(r.Config.UnknownKeys)
		if r.Config.Status == ConfigMissing || r.Config.Status == ConfigInvalid {
			n++
		}
	}
	for _, f := range r.Files {
		if f.Status == Skipped {
			n++
		}
	}
	for _, root := range r.Roots {
		if root.Status == RootError {
			n++
		}
	}
	for _, t := range r.Tools {
		if t.Status == "invalid" {
			n++
		}
	}
	return n
}

// WriteText prints the report for a terminal: problems first; the
// content checks' findings by rule, the first few of each.
func (r Report) WriteText(w io.Writer) error { return r.WriteTextLint(w, false) }

// WriteTextLint is WriteText, listing every flagged entry when all.
func (r Report) WriteTextLint(w io.Writer, all bool) error {
	if c := r.Config; c != nil {
		line := fmt.Sprintf("CONFIG  %s  %s", c.Status, c.Path)
		if c.Reason != "" {
			line += "  (" + c.Reason + ")"
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if c := r.Config; c != nil {
		for _, u := range c.UnknownKeys {
			fmt.Fprintf(tw, "  unknown\t%s\t%s\n", u.Key, u.Reason)
		}
	}
	for _, p := range r.ConfigProblems {
		fmt.Fprintf(tw, "  invalid\t%s\t%s\n", p.Key, p.Reason)
	}
	files := slices.Clone(r.Files)
	rank := map[string]int{Skipped: 0, Warning: 1, Shadowed: 2, Loaded: 3}
	slices.SortStableFunc(files, func(a, b File) int { return rank[a.Status] - rank[b.Status] })
	fmt.Fprintf(tw, "FILES (%d)\n", len(files))
	for _, f := range files {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", f.Status, f.Kind, orDash(f.ID), f.Path)
		if f.Reason != "" {
			fmt.Fprintf(tw, "  \t\t\t  %s\n", f.Reason)
		}
	}
	fmt.Fprintf(tw, "ROOTS (%d)\n", len(r.Roots))
	for _, root := range r.Roots {
		line := fmt.Sprintf("  %s\t%d skills\t%s", root.Status, root.Skills, root.Path)
		if root.Reason != "" {
			line += "  (" + root.Reason + ")"
		}
		fmt.Fprintln(tw, line)
	}
	fmt.Fprintf(tw, "TOOLS (%d)\n", len(r.Tools))
	for _, t := range r.Tools {
		name := t.Skill + "::" + t.Tool
		if t.Tool == "" { // the skill's tools do not parse: one row for them all
			name = t.Skill
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", t.Status, name, t.Reason)
	}
	fmt.Fprintf(tw, "WATCH\t%s\n", r.Watch.Mode)
	if r.Lint != nil {
		r.Lint.writeText(tw, all)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	r.Availability.writeText(w)
	if n := r.Problems(); n > 0 {
		_, err := fmt.Fprintf(w, "\n%d problem%s: see the reasons above.\n", n, plural(n))
		return err
	}
	_, err := fmt.Fprintln(w, "\nNo problems.")
	return err
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
