package diagnostics

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/catalog/catalogtest"
	"github.com/iii-hq/skills-go/internal/fsource"
	"github.com/iii-hq/skills-go/internal/iii"
)

// logLines renders observed entries as "LEVEL message k=v ..." with the
// fields sorted, and every occurrence of dir replaced by "<dir>".
func logLines(logs *observer.ObservedLogs, dir string) []string {
	var out []string
	for _, e := range logs.All() {
		var fields []string
		for k, v := range e.ContextMap() {
			fields = append(fields, fmt.Sprintf("%s=%v", k, v))
		}
		slices.Sort(fields)
		line := strings.TrimSpace(e.Level.CapitalString() + " " + e.Message + " " + strings.Join(fields, " "))
		out = append(out, strings.ReplaceAll(line, dir, "<dir>"))
	}
	return out
}

// fixture is a Diagnoser over a view of an in-memory state and, when
// given, files.
type fixture struct {
	ctx   context.Context
	state *catalogtest.State
	view  *catalog.View
	diag  *Diagnoser
}

func observedFixture(t *testing.T, fs *fsource.Source) (*fixture, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zapcore.DebugLevel)
	state := catalogtest.NewState()
	view := catalog.NewView(catalog.ViewConfig{Caller: state, SkillsScope: "skills", PromptsScope: "prompts",
		Timeout: 2 * time.Second, Source: fs})
	return &fixture{ctx: t.Context(), state: state, view: view, diag: New(Config{View: view, Logger: zap.New(core)})}, logs
}

func TestLogFSHealth(t *testing.T) {
	dir := t.TempDir()
	catalogtest.WriteFiles(t, dir, map[string]string{
		"fs-skills/alpha.md":     "# Alpha",
		"fs-skills/dual.md":      "# Dual from fs",
		"fs-skills/Bad-Name.md":  "x",
		"fs-prompts/open-pr.md":  "---\ndescription: Open a PR\n---\nbody\n",
		"fs-prompts/no-fm.md":    "no frontmatter",
		"fs-prompts/greet.md":    "---\ndescription: Greet\n---\nhi\n",
		"fs-prompts/unused.txt":  "not matched",
		"fs-skills/nested/ok.md": "# ok",
	})
	f, logs := observedFixture(t, fsource.New(dir, []string{"fs-skills/**/*.md"}, []string{"fs-prompts/**/*.md"}))
	if err := f.view.PutSkill(f.ctx, catalog.SkillRow{ID: "dual", Skill: "# state", RegisteredAt: "t"}); err != nil {
		t.Fatal(err)
	}
	if err := f.view.PutPrompt(f.ctx, catalog.PromptRow{Name: "greet", Description: "d", FunctionID: "w::greet", RegisteredAt: "t", Arguments: []catalog.PromptArg{}}); err != nil {
		t.Fatal(err)
	}
	logs.TakeAll() // drop the registration lines

	f.diag.LogFSHealth(f.ctx)
	want := []string{
		"INFO loaded fs-backed skill id=alpha path=<dir>/fs-skills/alpha.md",
		"INFO loaded fs-backed skill id=dual path=<dir>/fs-skills/dual.md",
		"INFO loaded fs-backed skill id=nested/ok path=<dir>/fs-skills/nested/ok.md",
		"INFO loaded fs-backed prompt name=greet path=<dir>/fs-prompts/greet.md",
		"INFO loaded fs-backed prompt name=open-pr path=<dir>/fs-prompts/open-pr.md",
		`WARN skipped fs entry kind=skill path=<dir>/fs-skills/Bad-Name.md reason=invalid id "Bad-Name": invalid id (segment 1 of "Bad-Name"): segment may only contain lowercase ASCII letters, digits, '-' and '_': "Bad-Name"`,
		"WARN skipped fs entry kind=prompt path=<dir>/fs-prompts/no-fm.md reason=missing YAML frontmatter (expected --- ... --- block at file start)",
		"WARN fs entry shadowed by state id=dual kind=skill path=<dir>/fs-skills/dual.md",
		"WARN fs entry shadowed by state kind=prompt name=greet path=<dir>/fs-prompts/greet.md",
		"INFO fs source scan complete base_dir=<dir> prompts=2 shadowed=2 skills=3 skipped=2",
	}
	if diff := cmp.Diff(want, logLines(logs, dir)); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
}

func TestLogFSHealthStateDown(t *testing.T) {
	dir := t.TempDir()
	catalogtest.WriteFiles(t, dir, map[string]string{"s/a.md": "# a"})
	f, logs := observedFixture(t, fsource.New(dir, []string{"s/*.md"}, nil))
	f.state.FailWith("state::list", iii.ErrNotConnected)
	f.diag.LogFSHealth(f.ctx)
	want := []string{
		"INFO loaded fs-backed skill id=a path=<dir>/s/a.md",
		"WARN could not check fs skills against state error=state::list: not connected to the engine (the worker reconnects on its own; retry shortly)",
		"INFO fs source scan complete base_dir=<dir> prompts=0 shadowed=0 skills=1 skipped=0",
	}
	if diff := cmp.Diff(want, logLines(logs, dir)); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
}

func TestLogFSHealthWithoutOverlay(t *testing.T) {
	f, logs := observedFixture(t, nil)
	f.diag.LogFSHealth(f.ctx)
	want := []string{"INFO fs source scan complete base_dir= prompts=0 shadowed=0 skills=0 skipped=0"}
	if diff := cmp.Diff(want, logLines(logs, "\x00")); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
	if n := len(f.state.CallsTo("state::list")); n != 0 {
		t.Errorf("state::list called %d times with nothing to check", n)
	}
}

// skills::diagnostics carries its description and schemas.
func TestFunction(t *testing.T) {
	f, _ := observedFixture(t, nil)
	fn := f.diag.Function()
	want := "skills::diagnostics | Reports every skill and prompt file found and what became of it (loaded, skipped, shadowed, warning, with the reason), the roots, the tool skills, the catalog and its cache, the engine link, the file watch and the reads per skill since boot."
	if got := fn.ID + " | " + fn.Description; got != want {
		t.Errorf("function = %q, want %q", got, want)
	}
	if fn.Handler == nil || len(fn.RequestFormat) == 0 || len(fn.ResponseFormat) == 0 || len(fn.Metadata) != 0 {
		t.Errorf("%s: handler or schemas missing, or metadata %s", fn.ID, fn.Metadata)
	}
}
