package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/iii-hq/skills-go/internal/iii/iiitest"
	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// The worker's side of iii compose's contract (docs/deployment.md): the
// project, config and environment the tests of the contract share.

// composeConfig names composeProject's files by relative paths.
const composeConfig = `scopes: {skills: docs-skills, prompts: docs-prompts}
skills: ["skills/**/*.md"]
prompts: [prompts/*.md]
roots: [agents]
`

// composeProject is a project directory holding skills, a root of Agent
// Skills, a prompt, and a file no glob names.
func composeProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for rel, content := range map[string]string{
		"skills/alpha.md":         "# Alpha\n\nThe first skill.\n",
		"skills/team/beta.md":     "# Beta\n\nHow the team works.\n",
		"agents/pdf/SKILL.md":     "---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n\nFill them.\n",
		"prompts/triage.md":       "---\ndescription: Triage an issue.\n---\nTriage it.\n",
		"unrelated/not-served.md": "# Not served\n",
	} {
		path := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, path, content)
	}
	return dir
}

// composeConfigFile writes content where iii compose writes a container's
// merged config: owner-only, in a directory of the daemon's.
func composeConfigFile(t *testing.T, container, content string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "compose", "default", "project-3f2a1b9c", "config")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, container+".yaml")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// The worker reads --config, else $III_CONFIG, else ./config.yaml; a file
// $III_CONFIG names that is missing is warned about, naming the variable
// and the path, and the worker boots with the defaults, as with a bad
// --config (never falling back to ./config.yaml).
func TestWorkerConfigPrecedence(t *testing.T) {
	project := t.TempDir()
	writeFile(t, filepath.Join(project, "config.yaml"), "scopes: {skills: from-cwd}\n")
	flagPath := filepath.Join(project, "flag.yaml")
	writeFile(t, flagPath, "scopes: {skills: from-flag}\n")
	envPath := composeConfigFile(t, "skills", "scopes: {skills: from-env}\n")
	missing := filepath.Join(t.TempDir(), "gone.yaml")
	t.Chdir(project)

	tests := []struct {
		name      string
		env       string
		args      []string
		wantScope string
		wantLog   string
	}{
		{"$III_CONFIG over ./config.yaml", envPath, nil, "from-env",
			"loaded config from " + envPath + " (named by $III_CONFIG)"},
		{"--config over $III_CONFIG", envPath, []string{"--config", flagPath}, "from-flag",
			"loaded config from " + flagPath},
		{"./config.yaml without either", "", nil, "from-cwd", "loaded config from ./config.yaml"},
		{"a blank $III_CONFIG is unset", " ", nil, "from-cwd", "loaded config from ./config.yaml"},
		{"a missing $III_CONFIG file: the defaults, and a warning naming it", missing, nil, "skills",
			`failed to load config named by $III_CONFIG, using defaults	{"path": "` + missing + `", "error": "read config ` + missing + `: no such file or directory"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("III_CONFIG", tt.env)
			srv := iiitest.NewServer(t)
			worker := startWorker(t, srv, tt.args...)
			worker.stdout.waitFor(t, tt.wantLog)
			caller := newCaller(t, srv)
			if _, err := caller.Call(context.Background(), "skills::register", map[string]string{"id": "probe", "skill": "# Probe"}); err != nil {
				t.Fatal(err)
			}
			if _, ok := srv.State(tt.wantScope, "probe"); !ok {
				t.Errorf("the registered row is not in scope %s: the worker read another config\n%s", tt.wantScope, worker.stdout)
			}
			if code := worker.stop(); code != exitOK {
				t.Errorf("exit %d", code)
			}
		})
	}
}

// The worker declares the namespace $III_NAMESPACE names in its
// engine::workers::register call, under the name $III_WORKER_NAME gives;
// unset or blank, it declares none (the default namespace) and the call
// is the one 0.22 engines know.
func TestWorkerDeclaresIIINamespace(t *testing.T) {
	for _, tt := range []struct {
		env, want string
	}{
		{"docs", `"namespace":"docs"`},
		{"", ""},
		{"  ", ""},
	} {
		t.Run("III_NAMESPACE="+tt.env, func(t *testing.T) {
			t.Setenv("III_NAMESPACE", tt.env)
			t.Setenv("III_WORKER_NAME", "docs-skills")
			frames := make(chan wire.InvokeFunction, 16)
			engine := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				ws, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
				if err != nil {
					return
				}
				defer ws.Close()
				for {
					_, data, err := ws.ReadMessage()
					if err != nil {
						return
					}
					if m, err := wire.Decode(data); err == nil {
						if inv, ok := m.(wire.InvokeFunction); ok {
							frames <- inv
						}
					}
				}
			}))
			defer engine.Close()
			worker := startCmd(t, "--url", "ws"+strings.TrimPrefix(engine.URL, "http"), "--config", filepath.Join(t.TempDir(), "none.yaml"))
			defer worker.stop()
			var meta wire.InvokeFunction
			select {
			case meta = <-frames:
			case <-time.After(lineTimeout):
				t.Fatalf("no engine::workers::register call within %s\n%s", lineTimeout, worker.stdout)
			}
			data := string(meta.Data)
			if meta.FunctionID != "engine::workers::register" || !strings.Contains(data, `"name":"docs-skills"`) {
				t.Fatalf("first call = %s %s, want engine::workers::register naming docs-skills", meta.FunctionID, data)
			}
			if tt.want == "" && (strings.Contains(data, "namespace") || meta.Namespace != "") {
				t.Errorf("III_NAMESPACE=%q: the call names a namespace: %s (frame namespace %q)", tt.env, data, meta.Namespace)
			}
			if tt.want != "" && (!strings.Contains(data, tt.want) || meta.Namespace != "default") {
				t.Errorf("III_NAMESPACE=%q: call %s to namespace %q, want %s in it, sent to default", tt.env, data, meta.Namespace, tt.want)
			}
		})
	}
}

// skills doctor and skills tools read the config the worker would: under
// $III_CONFIG they find the project's files from its directory and keep
// tools.lock there. The same file given with --config resolves its
// relative entries against iii compose's directory, where they find
// nothing: each is a warning on stderr naming the entry, the directory
// and the rule (docs/decisions.md D57), not a problem (exit 0).
func TestDoctorAndToolsReadTheWorkersConfig(t *testing.T) {
	project := composeProject(t)
	if err := os.MkdirAll(filepath.Join(project, "agents", "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(project, "agents", "git", "SKILL.md"), gitSkill)
	envPath := composeConfigFile(t, "docs", composeConfig)
	stateDir := filepath.Dir(envPath)
	t.Chdir(project)
	t.Setenv("III_CONFIG", envPath)
	ctx := context.Background()

	code, out, errOut := runCmd(t, ctx, "doctor")
	for _, want := range []string{
		"CONFIG loaded " + envPath + " (named by $III_CONFIG; its relative paths resolve against the working directory, " + project + ")",
		"loaded skill alpha", "loaded skill team/beta", "loaded skill pdf", "loaded prompt triage",
		"ok 2 skills " + filepath.Join(project, "agents"),
		"No problems.",
	} {
		if !strings.Contains(squeeze(out), want) {
			t.Errorf("doctor under $III_CONFIG lacks %q:\n%s", want, out)
		}
	}
	if code != exitOK || errOut != "" {
		t.Errorf("doctor under $III_CONFIG: exit %d, stderr %q; want 0 and nothing", code, errOut)
	}

	warnings := []string{
		`skills doctor: warning: the relative skills glob "skills/**/*.md" matches nothing under ` + stateDir +
			" (relative paths resolve against the config file's directory; set base_dir to resolve them elsewhere)",
		`skills doctor: warning: the relative prompts glob "prompts/*.md" matches nothing under ` + stateDir,
		`skills doctor: warning: the relative root "agents" finds no skills in ` + filepath.Join(stateDir, "agents"),
	}
	for _, args := range [][]string{{"doctor", "--config", envPath}, {"doctor", "--json", "--config", envPath}} {
		code, out, errOut = runCmd(t, ctx, args...)
		for _, want := range warnings {
			if !strings.Contains(errOut, want) {
				t.Errorf("%s: stderr lacks %q:\n%s", strings.Join(args, " "), want, errOut)
			}
		}
		if code != exitOK || strings.Contains(out, "alpha") {
			t.Errorf("%s: exit %d, want 0 and no file found:\n%s", strings.Join(args, " "), code, out)
		}
	}

	code, out, errOut = runCmd(t, ctx, "tools", "approve", "git", "--yes")
	if code != exitOK || !strings.Contains(out, "approved git") || errOut != "" {
		t.Fatalf("tools approve under $III_CONFIG: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(project, "tools.lock")); err != nil {
		t.Errorf("tools.lock is not in the working directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(stateDir, "tools.lock")); err == nil {
		t.Errorf("tools.lock was written into iii compose's directory %s", stateDir)
	}
	_, out, errOut = runCmd(t, ctx, "tools", "list", "--config", envPath)
	if !strings.Contains(errOut, `skills tools: warning: the relative skills glob "skills/**/*.md" matches nothing under `+stateDir) ||
		!strings.Contains(errOut, `skills tools: warning: the relative root "agents" finds no skills`) || strings.Contains(errOut, "prompts glob") {
		t.Errorf("tools list --config %s: want warnings for the skills glob and the root only:\n%s%s", envPath, out, errOut)
	}

	based := composeConfigFile(t, "based", "base_dir: "+project+"\n"+composeConfig)
	t.Chdir(t.TempDir())
	t.Setenv("III_CONFIG", based)
	code, out, errOut = runCmd(t, ctx, "doctor")
	if want := "(named by $III_CONFIG; its relative paths resolve against base_dir, " + project + ")"; code != exitOK ||
		!strings.Contains(out, want) || !strings.Contains(squeeze(out), "loaded skill alpha") || errOut != "" {
		t.Errorf("doctor under $III_CONFIG with base_dir, elsewhere: exit %d, want 0, the files and %q\n%s%s", code, want, out, errOut)
	}

	missing := filepath.Join(t.TempDir(), "gone.yaml")
	t.Setenv("III_CONFIG", missing)
	code, out, _ = runCmd(t, ctx, "doctor")
	if code != 1 || !strings.Contains(squeeze(out), "missing "+missing+" (no such file; $III_CONFIG names it") {
		t.Errorf("doctor with $III_CONFIG naming a missing file: exit %d, want 1 and the variable named\n%s", code, out)
	}
	code, _, errOut = runCmd(t, ctx, "tools", "list")
	if code != 1 || !strings.Contains(errOut, "skills tools: config "+missing+": no such file; $III_CONFIG names it") {
		t.Errorf("tools list with $III_CONFIG naming a missing file: exit %d\n%s", code, errOut)
	}
}

// squeeze is s with every run of spaces (tabwriter's columns) made one.
func squeeze(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return strings.Join(lines, "\n")
}
