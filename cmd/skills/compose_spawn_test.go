//go:build unix

package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"

	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii/iiitest"
)

// These tests start the real binary as iii compose (0.23) starts a
// container (crates/iii-compose/src/spawn.rs, spawn_plan): the program is
// `sh -c <scripts.start>` of a path:// worker's iii.worker.yaml, or a
// package's binary with no arguments; the environment is built from
// scratch (the host baseline, of which PATH and HOME matter here, then
// the reserved III_URL, III_NAMESPACE, III_WORKER_NAME and III_CONFIG);
// III_CONFIG names a 0600 file in a 0700 directory of the daemon's
// (~/.iii/compose/<ns>/<project>/config/<container>.yaml); the working
// directory is the container's. Readiness is compose's: the engine lists
// a worker named III_WORKER_NAME with its functions.
//
// composeEnv is a container's whole environment: PATH and HOME from the
// host, then the reserved variables. configPath "" leaves III_CONFIG out,
// as compose does for a container without config.
func composeEnv(srv *engine.Engine, namespace, container, configPath string) []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"III_URL=" + srv.URL(), "III_NAMESPACE=" + namespace, "III_WORKER_NAME=" + container}
	if configPath != "" {
		env = append(env, "III_CONFIG="+configPath)
	}
	return env
}

// spawned is a process started from a spawn plan, in its own process
// group as compose starts it.
type spawned struct {
	cmd  *exec.Cmd
	out  *output
	done chan error
}

func spawn(t *testing.T, dir string, env []string, program string, args ...string) *spawned {
	t.Helper()
	cmd := exec.Command(program, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out := newOutput()
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &spawned{cmd: cmd, out: out, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	})
	return p
}

// stop is compose's polite stop: SIGTERM to the group. The worker must
// end with status 0 within stopTimeout.
func (p *spawned) stop(t *testing.T) {
	t.Helper()
	if err := syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.done:
		p.done <- err // for the cleanup
		if err != nil {
			t.Errorf("the worker stopped with %v after SIGTERM, want status 0; output:\n%s", err, p.out)
		}
	case <-time.After(stopTimeout):
		t.Errorf("the worker did not stop within %s of SIGTERM; output:\n%s", stopTimeout, p.out)
	}
}

// waitComposeReady waits as compose does for a worker named container in
// namespace, then for its functions there, within timeout; the process's
// output is shown if it never comes.
func waitComposeReady(t *testing.T, srv *engine.Engine, p *spawned, namespace, container string, timeout time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	go func() {
		select {
		case err := <-p.done:
			p.done <- err
			cancel() // exited before registering: CHILD_EXITED_BEFORE_REGISTRATION
		case <-ctx.Done():
		}
	}()
	if err := srv.WaitWorkerIn(ctx, namespace, container); err != nil {
		t.Fatalf("no worker %q registered in namespace %q: %v; its output:\n%s", container, namespace, err, p.out)
	}
	for _, id := range workerFunctions {
		if err := srv.WaitFunctionIn(ctx, namespace, id); err != nil {
			t.Fatalf("worker %q never registered %s: %v; its output:\n%s", container, id, err, p.out)
		}
	}
}

// served is what a worker in namespace serves: the skills and prompts
// listed and the iii://skills index, as JSON values, asked by a caller in
// that namespace.
func served(t *testing.T, srv *engine.Engine, namespace string) map[string]any {
	t.Helper()
	caller := newCallerIn(t, srv, namespace)
	out := map[string]any{}
	for name, call := range map[string]struct {
		fn   string
		data any
	}{
		"skills":       {"skills::list", map[string]any{}},
		"prompts":      {"prompts::list", map[string]any{}},
		"iii://skills": {"skills::resources-read", map[string]string{"uri": "iii://skills"}},
	} {
		raw, err := caller.Call(context.Background(), call.fn, call.data)
		if err != nil {
			t.Fatalf("%s: %v", call.fn, err)
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("%s: %v in %s", call.fn, err, raw)
		}
		out[name] = v
	}
	return out
}

// servesTheProject checks what a worker over composeProject serves: the
// two glob skills, the root's skill and the prompt, nothing else.
func servesTheProject(t *testing.T, got map[string]any) {
	t.Helper()
	b, _ := json.Marshal(got)
	s := string(b)
	for _, want := range []string{`"alpha"`, `"team/beta"`, `"pdf"`, `"triage"`} {
		if !strings.Contains(s, want) {
			t.Errorf("the worker does not serve %s: %s", want, s)
		}
	}
	if strings.Contains(s, "not-served") {
		t.Errorf("the worker serves a file its config does not name: %s", s)
	}
}

// The binary started with no arguments, as compose starts a package's,
// from the project directory with III_CONFIG naming a file elsewhere
// whose globs and roots are relative, serves exactly what the same config
// serves as ./config.yaml in the project directory (docs/decisions.md
// D57): relative paths of an $III_CONFIG file are the working
// directory's.
func TestComposeSpawnServesWhatTheConfigServes(t *testing.T) {
	bin := skillsBinary(t)
	project := composeProject(t)
	configPath := composeConfigFile(t, "docs", composeConfig)

	srv := iiitest.NewServer(t)
	worker := spawn(t, project, composeEnv(srv, "default", "docs", configPath), bin)
	waitComposeReady(t, srv, worker, "default", "docs", 20*time.Second)
	viaCompose := served(t, srv, "default")
	servesTheProject(t, viaCompose)
	for _, want := range []string{
		"loaded config from " + configPath + " (named by $III_CONFIG)",
		`"base": "` + project + `"`,
		`"skills": ["` + filepath.Join(project, "skills/**/*.md") + `"]`,
		`"roots": ["` + filepath.Join(project, "agents") + `"]`,
	} {
		worker.out.waitFor(t, want)
	}
	worker.stop(t)

	writeFile(t, filepath.Join(project, "config.yaml"), composeConfig)
	srv2 := iiitest.NewServer(t)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "III_URL=" + srv2.URL()}
	plain := spawn(t, project, env, bin, "--config", "config.yaml")
	waitComposeReady(t, srv2, plain, "default", "skills", 20*time.Second)
	if diff := cmp.Diff(served(t, srv2, "default"), viaCompose); diff != "" {
		t.Errorf("under III_CONFIG the worker serves otherwise than with --config from the project directory (-config +compose):\n%s", diff)
	}
	plain.stop(t)
}

// In a project with a namespace, on an engine with 0.23's namespace rules
// whose state worker is the engine's own (in the default namespace), the
// worker started as compose starts it registers in that namespace with
// its functions there and nowhere else (compose's readiness), and serves
// there what it serves in the default namespace (docs/decisions.md D58).
func TestComposeSpawnInANamespace(t *testing.T) {
	bin := skillsBinary(t)
	project := composeProject(t)
	configPath := composeConfigFile(t, "docs", composeConfig)

	srv := iiitest.NewServerWith(t, engine.Options{Namespaces: true})
	worker := spawn(t, project, composeEnv(srv, "shop", "docs", configPath), bin)
	waitComposeReady(t, srv, worker, "shop", "docs", 20*time.Second)
	for _, id := range workerFunctions {
		if _, ok := srv.FunctionIn(engine.DefaultNamespace, id); ok {
			t.Errorf("%s is registered in the default namespace too; compose fails such a worker (FUNCTIONS_IN_WRONG_NAMESPACE)", id)
		}
	}
	inShop := served(t, srv, "shop")
	servesTheProject(t, inShop)
	worker.stop(t)

	srv2 := iiitest.NewServer(t)
	plain := spawn(t, project, composeEnv(srv2, "default", "docs", configPath), bin)
	waitComposeReady(t, srv2, plain, "default", "docs", 20*time.Second)
	if diff := cmp.Diff(served(t, srv2, "default"), inShop); diff != "" {
		t.Errorf("in namespace shop the worker serves otherwise than in default (-default +shop):\n%s", diff)
	}
	plain.stop(t)
}

// scripts.start from iii.worker.yaml, run by sh -c in this checkout (a
// path:// container's working directory when the compose file sets none)
// with nothing but PATH, HOME and the reserved variables, builds the
// binary and becomes the worker: it registers under III_WORKER_NAME and
// serves a config whose base_dir points at the project.
func TestScriptsStartBuildsAndServes(t *testing.T) {
	var manifest struct {
		Scripts struct{ Start string }
	}
	raw, err := os.ReadFile("../../iii.worker.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(raw, &manifest); err != nil || manifest.Scripts.Start == "" {
		t.Fatalf("iii.worker.yaml has no scripts.start (%v)", err)
	}
	checkout, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	project := composeProject(t)
	configPath := composeConfigFile(t, "docs", "base_dir: "+project+"\n"+composeConfig)

	srv := iiitest.NewServer(t)
	worker := spawn(t, checkout, composeEnv(srv, "default", "docs", configPath), "sh", "-c", manifest.Scripts.Start)
	// A cold Go build cache makes the first build take minutes on a small
	// machine; compose would need a startup_timeout that long too.
	waitComposeReady(t, srv, worker, "default", "docs", 5*time.Minute)
	servesTheProject(t, served(t, srv, "default"))
	worker.stop(t)
}
