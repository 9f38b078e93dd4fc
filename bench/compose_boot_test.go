package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii"
)

// composeSkills is how many file skills the project of
// BenchmarkComposeBoot holds.
const composeSkills = 100

// composeConfigYAML is the project's config: a relative glob, which
// resolves against the working directory under $III_CONFIG and against
// the file's directory under --config (docs/decisions.md D57); both mean
// the project.
const composeConfigYAML = "skills: [\"skills/**/*.md\"]\n"

// bootTimeout bounds each wait of a boot round.
const bootTimeout = 60 * time.Second

// BenchmarkComposeBoot measures boot-to-ready of the real worker binary
// started as iii compose (0.23) starts a package's binary
// (docs/deployment.md): no arguments, an environment built from scratch
// (PATH, HOME, III_URL, III_NAMESPACE, III_WORKER_NAME, III_CONFIG), its
// config a 0600 file in a 0700 directory elsewhere whose glob is
// relative, the working directory the project's (100 file skills of 2
// KiB). Against it, in the same round, the same binary started the
// classic way: --config naming the project's config.yaml, the test's own
// environment plus III_URL and III_WORKER_NAME (and III_NAMESPACE where
// the row has one, the only way to name one), started from elsewhere.
//
// Each round starts a fresh local engine and a caller connected to it in
// the worker's namespace, then starts the process; it measures, from
// just before the process starts, (a) until the engine holds every
// function the worker registers (WaitFunctionIn, the set learnt from a
// first, untimed start) and (b) until the first skills::list answer that
// lists the 100 files (asked again at once until it does). The two
// starts alternate which goes first. Reported: the medians in ms and
// compose / classic.
//
// Rows: a 0.22.1 engine (III_NAMESPACE=default, as compose sets it for a
// project without one); engine 0.23 (Options.Namespaces, which holds a
// connection's registrations until its engine::workers::register call)
// with III_NAMESPACE=default; and engine 0.23 with III_NAMESPACE=shop,
// whose state is the engine's (the default namespace's).
//
//	go test -run '^$' -bench ComposeBoot -benchtime 7x ./bench/
func BenchmarkComposeBoot(b *testing.B) {
	bin := buildWorker(b)
	project := b.TempDir()
	body := skillBody(2048)
	for i := range composeSkills {
		writeSkillFile(b, filepath.Join(project, "skills", fmt.Sprintf("team-%02d", i%10), fmt.Sprintf("skill-%03d.md", i)), body)
	}
	writeSkillFile(b, filepath.Join(project, "config.yaml"), composeConfigYAML)
	// Compose's own state directory: ~/.iii/compose/<ns>/<project>/config/.
	composeDir := filepath.Join(b.TempDir(), "compose", "shop", "project", "config")
	if err := os.MkdirAll(composeDir, 0o700); err != nil {
		b.Fatal(err)
	}
	configPath := filepath.Join(composeDir, "skills.yaml")
	if err := os.WriteFile(configPath, []byte(composeConfigYAML), 0o600); err != nil {
		b.Fatal(err)
	}
	elsewhere := b.TempDir() // the classic start's working directory

	for _, row := range []struct {
		name      string
		opts      engine.Options
		namespace string // III_NAMESPACE
	}{
		{"engine-0.22/default", engine.Options{}, engine.DefaultNamespace},
		{"engine-0.23/default", engine.Options{Namespaces: true}, engine.DefaultNamespace},
		{"engine-0.23/shop", engine.Options{Namespaces: true}, "shop"},
	} {
		b.Run(row.name, func(b *testing.B) {
			starts := map[string]func(url string) (dir string, env, args []string){
				"compose": func(url string) (string, []string, []string) {
					return project, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "III_URL=" + url,
						"III_NAMESPACE=" + row.namespace, "III_WORKER_NAME=skills", "III_CONFIG=" + configPath}, nil
				},
				"classic": func(url string) (string, []string, []string) {
					extra := []string{"III_URL=" + url, "III_WORKER_NAME=skills"}
					if row.namespace != engine.DefaultNamespace {
						extra = append(extra, "III_NAMESPACE="+row.namespace)
					}
					return elsewhere, inheritedEnv(extra...), []string{"--config", filepath.Join(project, "config.yaml")}
				},
			}
			functions := workerFunctionIDs(b, bin, row.opts, row.namespace, starts["compose"])
			took := map[string]*[2][]time.Duration{"compose": {}, "classic": {}}
			order := []string{"compose", "classic"}
			for range b.N {
				for _, how := range order {
					fns, list := bootRound(b, bin, row.opts, row.namespace, functions, starts[how])
					took[how][0] = append(took[how][0], fns)
					took[how][1] = append(took[how][1], list)
				}
				slices.Reverse(order)
			}
			for _, how := range []string{"compose", "classic"} {
				b.ReportMetric(ms(median(took[how][0])), "ms-functions-"+how)
				b.ReportMetric(ms(median(took[how][1])), "ms-list-"+how)
			}
			b.ReportMetric(ms(median(took["compose"][0]))/ms(median(took["classic"][0])), "functions-compose/classic")
			b.ReportMetric(ms(median(took["compose"][1]))/ms(median(took["classic"][1])), "list-compose/classic")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// writeSkillFile writes a file, making its directories.
func writeSkillFile(tb testing.TB, path, content string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// workerFunctionIDs starts the worker twice, untimed, and returns the ids
// of the functions it registered in namespace ns both times once it said
// it was ready: every function but the internal ones whose ids are the
// process's own (the catalog's). It also warms the file cache and the
// binary's pages for the rounds.
func workerFunctionIDs(tb testing.TB, bin string, opts engine.Options, ns string, start func(url string) (string, []string, []string)) []string {
	tb.Helper()
	first := registeredOnce(tb, bin, opts, ns, start)
	ids := slices.DeleteFunc(registeredOnce(tb, bin, opts, ns, start), func(id string) bool { return !slices.Contains(first, id) })
	if !slices.Contains(ids, "skills::list") {
		tb.Fatalf("the worker registered %v in namespace %s; want skills::list among them", ids, ns)
	}
	return ids
}

// registeredOnce starts the worker and returns the ids of the functions
// it registered in ns once it said it was ready.
func registeredOnce(tb testing.TB, bin string, opts engine.Options, ns string, start func(url string) (string, []string, []string)) []string {
	tb.Helper()
	srv, err := engine.Start(context.Background(), "127.0.0.1:0", opts)
	if err != nil {
		tb.Fatal(err)
	}
	defer srv.Close()
	dir, env, args := start(srv.URL())
	p := startWorker(tb, bin, dir, env, args...)
	defer p.stop()
	p.waitLine(tb, bootTimeout, "skills ready")
	var ids []string
	for _, w := range srv.Workers() {
		if w.Name == "skills" && (w.Namespace == ns || w.Namespace == "" && ns == engine.DefaultNamespace) {
			ids = append(ids, w.Functions...)
		}
	}
	return ids
}

// bootRound starts a fresh engine, a caller in ns, then the worker as
// start says, and returns how long after the process started the engine
// held every one of functions in ns, and the first skills::list answer
// listed the project's files.
func bootRound(tb testing.TB, bin string, opts engine.Options, ns string, functions []string, start func(url string) (string, []string, []string)) (fns, list time.Duration) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bootTimeout)
	defer cancel()
	srv, err := engine.Start(ctx, "127.0.0.1:0", opts)
	if err != nil {
		tb.Fatal(err)
	}
	defer srv.Close()
	callerNS := ns
	if ns == engine.DefaultNamespace {
		callerNS = ""
	}
	caller := iii.New(iii.Options{URL: srv.URL(), Name: "bench-caller", Namespace: callerNS})
	caller.Start()
	defer caller.Close()
	if err := caller.WaitReady(ctx); err != nil {
		tb.Fatal(err)
	}

	dir, env, args := start(srv.URL())
	p := startWorker(tb, bin, dir, env, args...)
	defer p.stop()
	for _, id := range functions {
		if err := srv.WaitFunctionIn(ctx, ns, id); err != nil {
			tb.Fatalf("%s never registered in %s: %v; its log:\n%s", id, ns, err, p.log())
		}
	}
	fns = time.Since(p.start)
	for {
		out, err := caller.Call(ctx, "skills::list", map[string]any{})
		var listed struct{ Skills []json.RawMessage }
		if err == nil && json.Unmarshal(out, &listed) == nil && len(listed.Skills) == composeSkills {
			return fns, time.Since(p.start)
		}
		if ctx.Err() != nil {
			tb.Fatalf("skills::list never listed the %d files: %v %.300s; the worker's log:\n%s", composeSkills, err, out, p.log())
		}
	}
}
