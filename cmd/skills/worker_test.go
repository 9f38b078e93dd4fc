package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/buildinfo"
	"github.com/iii-hq/skills-go/internal/diagnostics"
	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/iii/iiitest"
)

func TestManifestVersionHelp(t *testing.T) {
	code, stdout, _ := runCmd(t, context.Background(), "--manifest", "--url", "ws://127.0.0.1:1")
	if code != exitOK {
		t.Fatalf("--manifest exit %d", code)
	}
	var m struct {
		Name             string         `json:"name"`
		DefaultConfig    map[string]any `json:"default_config"`
		SupportedTargets []string       `json:"supported_targets"`
	}
	if err := json.Unmarshal([]byte(stdout), &m); err != nil {
		t.Fatalf("--manifest output is not JSON: %v\n%s", err, stdout)
	}
	if m.Name != "skills" || len(m.SupportedTargets) != 1 || m.SupportedTargets[0] != buildinfo.Target() {
		t.Errorf("manifest = %+v, want name skills and target %s", m, buildinfo.Target())
	}
	for _, key := range []string{"scopes", "state_timeout_ms", "skills", "prompts"} {
		if _, ok := m.DefaultConfig[key]; !ok {
			t.Errorf("default_config lacks %q: %v", key, m.DefaultConfig)
		}
	}

	code, stdout, _ = runCmd(t, context.Background(), "--version")
	if code != exitOK || !strings.HasPrefix(stdout, "skills "+buildinfo.Version) {
		t.Errorf("--version = %d %q", code, stdout)
	}
	code, stdout, _ = runCmd(t, context.Background(), "-h")
	if code != exitOK || !strings.Contains(stdout, "--manifest") {
		t.Errorf("-h = %d %q", code, stdout)
	}
	code, _, stderr := runCmd(t, context.Background(), "--no-such-flag")
	if code != exitUsage || !strings.Contains(stderr, "no-such-flag") {
		t.Errorf("unknown flag = %d %q", code, stderr)
	}
	code, _, stderr = runCmd(t, context.Background(), "--log-level", "loud")
	if code != exitUsage || !strings.Contains(stderr, `invalid --log-level "loud"`) {
		t.Errorf("bad log level = %d %q", code, stderr)
	}
}

// startWorker runs the worker in-process against srv and returns once the
// engine has every worker function; stop it with its stop method (or let
// t.Cleanup do it).
func startWorker(t *testing.T, srv *engine.Engine, args ...string) *process {
	t.Helper()
	p := startCmd(t, append([]string{"--url", srv.URL()}, args...)...)
	waitCtx, waitCancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer waitCancel()
	for _, id := range workerFunctions {
		if err := srv.WaitFunction(waitCtx, id); err != nil {
			t.Fatalf("worker never registered %s: %v\nstdout:\n%s", id, err, p.stdout)
		}
	}
	return p
}

// workerFunctions are 0.2's function ids, which a started worker must
// have registered before these tests call it; it registers more after
// them (ExampleNew_functions in internal/worker lists every one).
var workerFunctions = []string{
	"skills::register", "skills::unregister", "skills::list", "skills::resources-list",
	"skills::resources-read", "skills::resources-templates", "skills::fetch_skill", "skill::fetch",
	"prompts::register", "prompts::unregister", "prompts::list", "prompts::mcp-list", "prompts::mcp-get",
}

func newCaller(t *testing.T, srv *engine.Engine) *iii.Client {
	t.Helper()
	return newCallerIn(t, srv, "")
}

// newCallerIn is a caller in namespace ns ("" or "default": the default
// one), whose calls go there as an official SDK's do.
func newCallerIn(t *testing.T, srv *engine.Engine, ns string) *iii.Client {
	t.Helper()
	return dialCaller(t, srv.URL(), ns)
}

func TestWorkerServesConfigAndStopsCleanly(t *testing.T) {
	srv := iiitest.NewServer(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "docs", "team"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "docs", "team", "guide.md"), "# Team guide\n\nHow the team works.\n")
	writeFile(t, filepath.Join(dir, "config.yaml"), "scopes:\n  skills: my-skills\nskills:\n  - docs/**/*.md\n")

	worker := startWorker(t, srv, "--config", filepath.Join(dir, "config.yaml"))
	caller := newCaller(t, srv)
	ctx := context.Background()

	if _, err := caller.Call(ctx, "skills::register", map[string]string{"id": "alpha", "skill": "# Alpha\n\nFirst."}); err != nil {
		t.Fatalf("register: %v", err)
	}
	if _, ok := srv.State("my-skills", "alpha"); !ok {
		t.Errorf("skill row not written to the configured scope my-skills")
	}
	out, err := caller.Call(ctx, "skills::resources-read", map[string]string{"uri": "iii://team/guide"})
	if err != nil {
		t.Fatalf("read fs skill: %v", err)
	}
	if !strings.Contains(string(out), "How the team works.") {
		t.Errorf("fs skill read = %s", out)
	}

	if code := worker.stop(); code != exitOK {
		t.Errorf("exit code after cancellation = %d, want 0", code)
	}
	gone, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := srv.WaitFunctionGone(gone, "skills::register"); err != nil {
		t.Fatalf("skills::register still registered after the worker stopped: %v", err)
	}
}

func TestWorkerBootsWithDefaultsOnBadConfig(t *testing.T) {
	srv := iiitest.NewServer(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "config.yaml"), "scopes: [not, a, map]\nstate_timeout_ms: soon\n")

	startWorker(t, srv, "--config", filepath.Join(dir, "config.yaml"))
	caller := newCaller(t, srv)
	if _, err := caller.Call(context.Background(), "skills::register", map[string]string{"id": "beta", "skill": "b"}); err != nil {
		t.Fatalf("register: %v", err)
	}
	if _, ok := srv.State("skills", "beta"); !ok {
		t.Errorf("with a malformed config the row should land in the default scope skills")
	}
}

func TestDevStartsEngineAndWorker(t *testing.T) {
	port := freePort(t)
	dev := startCmd(t, "dev", "--port", strconv.Itoa(port), "--config", filepath.Join(t.TempDir(), "none.yaml"))
	dev.stdout.waitFor(t, "skills ready")
	url := "ws://127.0.0.1:" + strconv.Itoa(port)
	code, stdout, stderr := runCmd(t, context.Background(), "call", "--url", url, "skills::resources-templates")
	if code != exitOK {
		t.Fatalf("dev did not serve skills::resources-templates: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "iii://fn/{function_path}") {
		t.Errorf("templates = %s", stdout)
	}
	if code := dev.stop(); code != exitOK {
		t.Errorf("dev exit = %d, want 0", code)
	}
}

// The worker logs to stdout, as the reference worker does (its tracing
// subscriber writes there); iii-worker captures both streams.
func TestWorkerLogsToStdout(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.yaml")
	worker := startCmd(t, "--config", missing, "--url", "ws://127.0.0.1:1")
	worker.stdout.waitFor(t, "failed to load config, using defaults")
	if code := worker.stop(); code != exitOK {
		t.Errorf("exit %d, stderr %q", code, worker.stderr)
	}
	if strings.Contains(worker.stderr.String(), "failed to load config") {
		t.Errorf("the boot warning went to stderr too: %q", worker.stderr)
	}
}

// The reference worker's notable log lines: "registered trigger type" per
// type, and "trigger subscription registered" / "trigger subscription
// unregistered" as subscribers come and go.
func TestTriggerSubscriptionsAreLogged(t *testing.T) {
	srv := iiitest.NewServer(t)
	worker := startWorker(t, srv, "--config", filepath.Join(t.TempDir(), "none.yaml"))
	worker.stdout.waitFor(t, "registered trigger type")
	caller := newCaller(t, srv)
	caller.RegisterTrigger(iii.Trigger{ID: "log-sub", Type: "skills::on-change", FunctionID: "log::sink"})
	worker.stdout.waitFor(t, "trigger subscription registered")
	caller.UnregisterTrigger("log-sub")
	worker.stdout.waitFor(t, "trigger subscription unregistered")
	if code := worker.stop(); code != exitOK {
		t.Errorf("exit %d", code)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A scope whose state::list is bigger than the engine's usual 64 MiB frame
// once dropped the worker's connection on every listing. With the default
// max_frame_bytes (1 GiB) the listing arrives and is answered on the same
// connection (docs/decisions.md D22).
func TestListingAScopeOver64MiBKeepsTheConnection(t *testing.T) {
	srv := iiitest.NewServer(t)
	body := "# Big\n\n" + strings.Repeat("x", 256<<10-16)
	row, err := json.Marshal(map[string]string{"id": "", "skill": body, "registered_at": "2026-11-23T00:00:00.000000000+00:00"})
	if err != nil {
		t.Fatal(err)
	}
	const n = 270 // 270 × 256 KiB ≈ 67.5 MiB
	for i := range n {
		id := fmt.Sprintf("big/s%03d", i)
		if err := srv.SetState("skills", id, bytes.Replace(row, []byte(`"id":""`), []byte(`"id":"`+id+`"`), 1)); err != nil {
			t.Fatal(err)
		}
	}
	// Moving 68 MiB under the race detector takes seconds: the state calls
	// get room, since this test is about the frame's size, not its speed.
	cfgPath := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, cfgPath, "state_timeout_ms: 120000\n")
	w := startWorker(t, srv, "--config", cfgPath)
	worker := workerIDs(srv, "skills")
	caller := newCaller(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	out, err := caller.Call(ctx, "skills::list", map[string]any{})
	if err != nil {
		t.Fatalf("skills::list over a %d-skill scope: %v\nworker:\n%s", n, err, w.stdout)
	}
	var list struct{ Skills []json.RawMessage }
	if err := json.Unmarshal(out, &list); err != nil || len(list.Skills) != n {
		t.Fatalf("skills::list returned %d rows (%v), want %d", len(list.Skills), err, n)
	}
	if after := workerIDs(srv, "skills"); len(worker) != 1 || !slices.Equal(worker, after) {
		t.Errorf("the worker reconnected during the listing: connections %v, then %v", worker, after)
	}
}

// workerIDs are the ids of the engine's connections that reported name.
func workerIDs(srv *engine.Engine, name string) []string {
	var out []string
	for _, w := range srv.Workers() {
		if w.Name == name {
			out = append(out, w.ID)
		}
	}
	return out
}

// A misspelt key is warned about, with its line and the nearest known key,
// and the worker still boots with the rest of the file applied.
func TestWorkerWarnsOfUnknownConfigKeys(t *testing.T) {
	srv := iiitest.NewServer(t)
	cfgPath := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, cfgPath, "scopes: {skills: typo-skills}\nskils: [docs/*.md]\ntools: {enable: true}\n")

	worker := startWorker(t, srv, "--config", cfgPath)
	for _, want := range []string{
		"config " + cfgPath + ": line 2: unknown key `skils` is ignored; did you mean `skills`?",
		"config " + cfgPath + ": line 3: unknown key `tools.enable` is ignored; did you mean `tools.enabled`?",
	} {
		worker.stdout.waitFor(t, want)
	}
	caller := newCaller(t, srv)
	if _, err := caller.Call(context.Background(), "skills::register", map[string]string{"id": "gamma", "skill": "g"}); err != nil {
		t.Fatalf("register: %v", err)
	}
	if _, ok := srv.State("typo-skills", "gamma"); !ok {
		t.Errorf("the known keys of a config with unknown ones must apply: no row in scope typo-skills")
	}
}

// One bad value keeps only its key at the default (D66): the worker logs
// it at start with its key and line, the rest of the file applies (the
// glob is served) and skills::diagnostics reports it.
func TestWorkerBadValueFallsBackPerKey(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "alpha.md"), "# Alpha\n")
	cfgPath := filepath.Join(dir, "config.yaml")
	writeFile(t, cfgPath, "state_timeout_ms: \"10s\"\nskills: [\"*.md\"]\n")
	srv := iiitest.NewServer(t)
	worker := startWorker(t, srv, "--config", cfgPath)
	worker.stdout.waitFor(t, "line 1: `state_timeout_ms` must be a whole number of milliseconds from 1 to 9223372036854, got str \"10s\"; `state_timeout_ms` keeps its default")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.WaitFunction(ctx, "skills::diagnostics"); err != nil {
		t.Fatal(err)
	}
	caller := newCaller(t, srv)
	res, err := caller.Call(ctx, "skills::list", map[string]any{})
	if err != nil || !strings.Contains(string(res), `"id":"alpha"`) {
		t.Errorf("skills::list = %s, %v; want alpha from the config's glob", res, err)
	}
	res, err = caller.Call(ctx, "skills::diagnostics", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	var rep diagnostics.Report
	if err := json.Unmarshal(res, &rep); err != nil || len(rep.ConfigProblems) != 1 || rep.ConfigProblems[0].Key != "state_timeout_ms" || rep.ConfigProblems[0].Line != 1 {
		t.Errorf("skills::diagnostics config_problems = %+v (%v)\n%s", rep.ConfigProblems, err, res)
	}
}

// A glob or root that finds nothing, absolute as well as relative, is a
// warning in the boot log, under unmatched in skills::diagnostics and in
// skills doctor (D66).
func TestUnmatchedGlobAndRootAreWarned(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "alpha.md"), "# Alpha\n")
	absGlob := filepath.Join(dir, "none", "*.md")
	absRoot := filepath.Join(dir, "no-root")
	cfgPath := filepath.Join(dir, "config.yaml")
	writeFile(t, cfgPath, fmt.Sprintf("skills: [\"*.md\", %q]\nroots: [%q, \"rel-root\"]\n", absGlob, absRoot))
	srv := iiitest.NewServer(t)
	worker := startWorker(t, srv, "--config", cfgPath)
	for _, want := range []string{
		fmt.Sprintf("glob or root finds nothing: the skills glob %q matches nothing", absGlob),
		fmt.Sprintf("glob or root finds nothing: the root %q finds no skills in %s", absRoot, absRoot),
		fmt.Sprintf("glob or root finds nothing: the relative root \"rel-root\" finds no skills in %s", filepath.Join(dir, "rel-root")),
	} {
		worker.stdout.waitFor(t, want)
	}
	if strings.Contains(worker.stdout.String(), `the relative skills glob "*.md"`) {
		t.Errorf("a glob that matches was warned of:\n%s", worker.stdout)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.WaitFunction(ctx, "skills::diagnostics"); err != nil {
		t.Fatal(err)
	}
	res, err := newCaller(t, srv).Call(ctx, "skills::diagnostics", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Unmatched []struct{ Kind, Entry, Path string }
	}
	if err := json.Unmarshal(res, &rep); err != nil || len(rep.Unmatched) != 3 ||
		rep.Unmatched[0].Entry != absGlob || rep.Unmatched[1].Path != absRoot || rep.Unmatched[2].Kind != "root" {
		t.Errorf("skills::diagnostics unmatched = %+v (%v)", rep.Unmatched, err)
	}
	code, out, errOut := runCmd(t, ctx, "doctor", "--config", cfgPath)
	if code != 0 || !strings.Contains(errOut, fmt.Sprintf("skills doctor: warning: the skills glob %q matches nothing", absGlob)) ||
		!strings.Contains(errOut, fmt.Sprintf("skills doctor: warning: the root %q finds no skills", absRoot)) {
		t.Errorf("doctor: exit %d, want 0 and both warned of\n%s%s", code, out, errOut)
	}
}
