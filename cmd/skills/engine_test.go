package main

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/iii-hq/skills-go/internal/redistest"
)

// startEngineCmd runs skills engine with args on a free port and returns
// the process and its URL, once it listens.
func startEngineCmd(t *testing.T, args ...string) (*process, string) {
	t.Helper()
	p := startCmd(t, append([]string{"engine", "--port", "0"}, args...)...)
	p.stdout.waitFor(t, "III_URL")
	url := regexp.MustCompile(`ws://127\.0\.0\.1:\d+`).FindString(p.stdout.String())
	if url == "" {
		t.Fatalf("the engine never said where it listens:\n%s", p.stdout)
	}
	return p, url
}

// callAt runs skills call against the engine at url.
func callAt(t *testing.T, url string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runCmd(t, t.Context(), append([]string{"call", "--url", url}, args...)...)
}

// skills engine --like 0.24 --state-in shop is a namespaced deployment on
// one machine, as iii compose runs a project with its own state
// container: a skills worker started with III_NAMESPACE=shop registers
// there, skills call --namespace shop reaches it, and its rows are kept
// by the shop's state worker, not the default namespace's. The engine
// pages state (state::list_entries) and has a configuration worker.
func TestEngineLike024RunsANamespacedProject(t *testing.T) {
	engine, url := startEngineCmd(t, "--like", "0.24", "--state-in", "shop")
	engine.stdout.waitFor(t, "state workers registered")
	t.Setenv("III_NAMESPACE", "shop")
	worker := startCmd(t, "--url", url, "--config", filepath.Join(t.TempDir(), "none.yaml"))
	worker.stdout.waitFor(t, "skills ready")
	t.Setenv("III_NAMESPACE", "")

	if code, _, stderr := callAt(t, url, "skills::register", "--namespace", "shop", "id=hello", "skill=# Hello\n\nFrom the shop."); code != exitOK {
		t.Fatalf("skills::register --namespace shop: exit %d: %s", code, stderr)
	}
	if code, stdout, stderr := callAt(t, url, "state::get", "--namespace", "shop", "scope=skills", "key=hello"); code != exitOK || !strings.Contains(stdout, `"id": "hello"`) {
		t.Errorf("state::get in shop: exit %d, %q %s; want the row of hello", code, stdout, stderr)
	}
	if code, stdout, stderr := callAt(t, url, "state::get", "scope=skills", "key=hello"); code != exitOK || stdout != "" {
		t.Errorf("state::get in default: exit %d, %q %s; want no row (the shop keeps its own state)", code, stdout, stderr)
	}
	if code, stdout, stderr := callAt(t, url, "state::list_entries", "--namespace", "shop", "scope=skills"); code != exitOK || !strings.Contains(stdout, `"total": 1`) {
		t.Errorf("state::list_entries in shop: exit %d, %q %s; want one entry", code, stdout, stderr)
	}
	if code, stdout, stderr := callAt(t, url, "configuration::list"); code != exitOK {
		t.Errorf("configuration::list: exit %d, %q %s; want the configuration worker's answer", code, stdout, stderr)
	}
}

// Without --like the engine is today's, 0.22.1's: no paged listing, no
// configuration worker, and a namespace a caller names is ignored, as
// 0.22.1 ignores unknown fields.
func TestEngineDefaultIsTheSameAsBefore(t *testing.T) {
	_, url := startEngineCmd(t)
	for _, fn := range []string{"state::list_entries", "configuration::list"} {
		if code, _, stderr := callAt(t, url, fn, "scope=skills"); code != exitError || !strings.Contains(stderr, "function_not_found") {
			t.Errorf("%s: exit %d, %q; want function_not_found", fn, code, stderr)
		}
	}
	if code, _, stderr := callAt(t, url, "state::set", "--namespace", "shop", `{"scope":"s","key":"k","value":1}`); code != exitOK {
		t.Fatalf("state::set --namespace shop: exit %d: %s", code, stderr)
	}
	if code, stdout, stderr := callAt(t, url, "state::get", "scope=s", "key=k"); code != exitOK || stdout != "1\n" {
		t.Errorf("state::get in default: exit %d, %q %s; want 1 (a 0.22 engine has one namespace)", code, stdout, stderr)
	}
}

// --state-after keeps the state worker away until it has passed: no
// state::* function before, and the functions once the engine says the
// state workers registered.
func TestEngineStateAfter(t *testing.T) {
	_, url := startEngineCmd(t, "--like", "0.24", "--state-after", "1h")
	if code, _, stderr := callAt(t, url, "state::list", "scope=s"); code != exitError || !strings.Contains(stderr, "function_not_found: Function state::list not found") {
		t.Errorf("state::list before --state-after: exit %d, %q; want function_not_found", code, stderr)
	}

	engine, url := startEngineCmd(t, "--like", "0.24", "--state-after", "10ms")
	engine.stdout.waitFor(t, "state workers registered")
	if code, stdout, stderr := callAt(t, url, "state::list", "scope=s"); code != exitOK || stdout != "[]\n" {
		t.Errorf("state::list after --state-after: exit %d, %q %s; want []", code, stdout, stderr)
	}
	if code := engine.stop(); code != exitOK {
		t.Errorf("the engine stopped with %d, want %d", code, exitOK)
	}
}

// Shapes the engine cannot take are usage errors naming the value and
// what is allowed.
func TestEngineShapeUsageErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--like", "0.25"}, `skills engine: --like "0.25": give 0.22 (the default), 0.23 or 0.24`},
		{[]string{"--state-in", "shop"}, `skills engine: --state-in "shop" needs namespaces, which iii 0.22 has not: add --like 0.23 or 0.24`},
		{[]string{"--like", "0.23", "--state-in", " "}, `skills engine: --state-in " " is blank: name a namespace, such as shop`},
		{[]string{"--like", "0.23", "--state-in", "default"}, "skills engine: --state-in default: the default namespace's state worker is the engine's own"},
		{[]string{"--like", "0.23", "--state-after", "1s"}, "skills engine: --state-after 1s: only iii 0.24 runs state as a worker of its own, which may register late; add --like 0.24"},
		{[]string{"--like", "0.24", "--state-after", "-1s"}, "skills engine: --state-after -1s is negative"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, _, stderr := runCmd(t, context.Background(), append([]string{"engine", "--port", "0"}, tt.args...)...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, exitUsage, tt.want)
			}
		})
	}
}

// --state takes only a Redis URL, and not with --data, in skills engine
// and skills dev alike: a usage error naming the value and the form.
func TestEngineStateFlagUsageErrors(t *testing.T) {
	for _, cmd := range []string{"engine", "dev"} {
		for _, tt := range []struct {
			args []string
			want string
		}{
			{[]string{"--state", "localhost:6379"}, `skills ` + cmd + `: --state: state URL "localhost:6379" is not one the engine can use (the scheme must be redis://); give redis://host:port[/db], such as redis://127.0.0.1:6379/0`},
			{[]string{"--state", "redis://:pw@h:1/x"}, `state URL "redis://:xxxxx@h:1/x" is not one the engine can use (the path must be a database number, such as /0)`},
			{[]string{"--state", "redis://127.0.0.1:6379", "--data", "d"}, "skills " + cmd + ": --state and --data both say where state lives: give one"},
			{[]string{"--pubsub", "redis"}, `skills ` + cmd + `: --pubsub: pubsub "redis" is not one the engine can use (it is neither local nor a URL); give "local" or redis://host:port[/db], such as redis://127.0.0.1:6379, or none`},
			{[]string{"--pubsub", "redis://:pw@h:0"}, `pubsub "redis://:xxxxx@h:0" is not one the engine can use (the port must be a number from 1 to 65535)`},
		} {
			t.Run(cmd+" "+strings.Join(tt.args, " "), func(t *testing.T) {
				code, _, stderr := runCmd(t, context.Background(), append([]string{cmd, "--port", "0"}, tt.args...)...)
				if code != exitUsage || !strings.Contains(stderr, tt.want) {
					t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, exitUsage, tt.want)
				}
			})
		}
	}
}

// skills engine --state keeps state in Redis and says so: what one engine
// writes, another started on the same Redis reads.
func TestEngineStateInRedis(t *testing.T) {
	srv := redistest.NewServer(t, redistest.Options{})
	a, urlA := startEngineCmd(t, "--state", srv.URL)
	if !strings.Contains(a.stdout.String(), "state is kept in Redis") {
		t.Errorf("the engine's log does not say where state lives:\n%s", a.stdout)
	}
	// --state in Redis brings pubsub on the same Redis (D75).
	if !strings.Contains(a.stdout.String(), "pubsub (publish, subscribe) goes through Redis") {
		t.Errorf("the engine's log does not say its pubsub is in Redis:\n%s", a.stdout)
	}
	_, urlB := startEngineCmd(t, "--state", srv.URL)
	if code, out, stderr := callAt(t, urlA, "state::set", `{"scope":"s","key":"k","value":{"v":1}}`); code != 0 {
		t.Fatalf("state::set through A: exit %d: %s %s", code, out, stderr)
	}
	code, out, stderr := callAt(t, urlB, "state::get", `{"scope":"s","key":"k"}`)
	if code != 0 || !strings.Contains(out, `"v"`) {
		t.Errorf("state::get through B: exit %d, %q %q; want A's value", code, out, stderr)
	}
}

// skills dev --state serves the registry on a Redis: a skill registered
// through it is the row state:skills holds, in iii's layout (D71).
func TestDevStateInRedis(t *testing.T) {
	srv := redistest.NewServer(t, redistest.Options{})
	dev := startCmd(t, "dev", "--port", "0", "--state", srv.URL, "--config", filepath.Join(t.TempDir(), "none.yaml"))
	dev.stdout.waitFor(t, "skills ready")
	url := regexp.MustCompile(`ws://127\.0\.0\.1:\d+`).FindString(dev.stdout.String())
	if code, out, stderr := callAt(t, url, "skills::register", `{"id":"redis-demo","skill":"---\nname: redis-demo\ndescription: kept in Redis\n---\n# Demo\n"}`); code != 0 {
		t.Fatalf("skills::register: exit %d: %s %s", code, out, stderr)
	}
	rc := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer rc.Close() //nolint:errcheck // test client
	row, err := rc.HGet(t.Context(), "state:skills", "redis-demo").Result()
	if err != nil || !strings.Contains(row, "kept in Redis") {
		t.Errorf("state:skills redis-demo = %q, %v; want the registered skill", row, err)
	}
	if code, out, _ := callAt(t, url, "skills::list", `{}`); code != 0 || !strings.Contains(out, "redis-demo") {
		t.Errorf("skills::list: exit %d, %s; want redis-demo", code, out)
	}
}

// The registry on a Redis that is down at the start and lost mid-run
// (issue 28, "Bad input"): a register fails naming the URL and the cause,
// and once Redis is back the same process registers and lists again,
// with every acknowledged skill there.
func TestDevRecoversWhenRedisComesBack(t *testing.T) {
	srv := redistest.NewServer(t, redistest.Options{AppendOnly: true})
	srv.Stop()
	dev := startCmd(t, "dev", "--port", "0", "--state", srv.URL, "--config", filepath.Join(t.TempDir(), "none.yaml"))
	dev.stdout.waitFor(t, "skills ready")
	url := regexp.MustCompile(`ws://127\.0\.0\.1:\d+`).FindString(dev.stdout.String())
	register := func(id string) (int, string) {
		code, out, stderr := callAt(t, url, "skills::register", `{"id":"`+id+`","skill":"---\nname: `+id+`\ndescription: d\n---\n# D\n"}`)
		return code, out + stderr
	}
	if code, out := register("while-down"); code == 0 || !strings.Contains(out, srv.URL) || !strings.Contains(out, "connection refused") {
		t.Errorf("register with Redis down: exit %d, %q; want a failure naming %s and the cause", code, out, srv.URL)
	}
	srv.Start()
	if code, out := register("first"); code != 0 {
		t.Fatalf("register once Redis is up: exit %d: %s", code, out)
	}
	srv.Stop()
	if code, out := register("lost-mid-run"); code == 0 || !strings.Contains(out, srv.URL) {
		t.Errorf("register with Redis lost: exit %d, %q; want a failure naming %s", code, out, srv.URL)
	}
	srv.Start()
	if code, out := register("second"); code != 0 {
		t.Fatalf("register once Redis is back: exit %d: %s", code, out)
	}
	code, out, _ := callAt(t, url, "skills::list", `{}`)
	for _, id := range []string{"first", "second"} {
		if code != 0 || !strings.Contains(out, `"id": "`+id+`"`) {
			t.Errorf("skills::list: exit %d, %s; want %s", code, out, id)
		}
	}
	for _, id := range []string{"while-down", "lost-mid-run"} {
		if strings.Contains(out, `"id": "`+id+`"`) {
			t.Errorf("skills::list lists %s, whose register failed:\n%s", id, out)
		}
	}
}
