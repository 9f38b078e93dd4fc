package worker

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/diagnostics"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/iii/iiitest"
	"github.com/iii-hq/skills-go/internal/search/embedtest"
)

// The embedder's answers a test can switch to.
const (
	embedWell = iota
	embedNotAnObject
	embedShortVectors
)

// A worker configured with search.embedder, over a real engine and
// WebSocket: the embedder is a deterministic one of this test's,
// registered as an iii function by another worker. A need that shares no
// word with its skill finds it once the skills have vectors; an embedder
// that answers a wrong shape, or is gone, leaves the answer exactly the
// lexical one and skills::diagnostics says why. It shows the wiring, not
// the quality of any encoder.
func TestSearchFusesAConfiguredEmbedder(t *testing.T) {
	srv := iiitest.NewServer(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "docs", "invoices.md"), "# Quarterly invoices\n\nSend the quarterly invoices to every customer.\n")
	write(t, filepath.Join(dir, "docs", "restore.md"), "# Restore a database\n\nBring a postgres database back from its nightly dump.\n")
	write(t, filepath.Join(dir, "docs", "rotate.md"), "# Rotate credentials\n\nReplace leaked keys.\n")
	cfgPath := filepath.Join(dir, "config.yaml")
	write(t, cfgPath, "skills: [docs/*.md]\nsearch: {embedder: \"test::embed\", embed_timeout_ms: 5000}\n")
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}

	concepts := embedtest.NewConcepts([]string{"invoices", "paperwork"}, []string{"customer", "members"}, []string{"dues", "quarterly"})
	var mode atomic.Int32
	emb := iii.New(iii.Options{URL: srv.URL(), Name: "embedder"})
	emb.RegisterFunction(iii.Function{ID: "test::embed", Handler: func(ctx context.Context, req iii.Request) (any, error) {
		var in struct{ Texts []string }
		if err := json.Unmarshal(req.Data, &in); err != nil {
			return nil, err
		}
		vecs, err := concepts.Embed(ctx, in.Texts)
		switch mode.Load() {
		case embedNotAnObject:
			return "vectors", nil
		case embedShortVectors:
			for i := range vecs {
				vecs[i] = vecs[i][:3]
			}
		}
		return map[string]any{"vectors": vecs}, err
	}})
	emb.Start()
	t.Cleanup(func() { emb.Close() }) //nolint:errcheck // closed again in the test

	w, err := New(config.Resolve(cfg, config.ModeWorker), Options{URL: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- w.Run(context.Background()) }()
	t.Cleanup(func() { w.Close() }) //nolint:errcheck // closed again in the test

	caller := iii.New(iii.Options{URL: srv.URL(), Name: "caller"})
	caller.Start()
	t.Cleanup(func() { caller.Close() }) //nolint:errcheck // test teardown
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	for _, fn := range []string{contract.FnSkillSearch, "test::embed"} {
		if err := srv.WaitFunction(ctx, fn); err != nil {
			t.Fatal(err)
		}
	}
	if err := caller.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	const need = "dues paperwork for members"
	searchFor := func() (string, contract.SearchResults) {
		t.Helper()
		raw, err := caller.Call(ctx, contract.FnSkillSearch, map[string]any{"query": need})
		if err != nil {
			t.Fatal(err)
		}
		var out contract.SearchResults
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatal(err)
		}
		return string(raw), out
	}
	lexical, out := searchFor() // the first search builds the index; no vector yet
	if slices.ContainsFunc(out.Results, func(r contract.SearchResult) bool { return r.ID == "invoices" }) || out.Ranking != "" {
		t.Fatalf("before any vector, %q found %s: the lexical ranking alone must not find invoices", need, lexical)
	}
	embedderState(ctx, t, caller, func(e *diagnostics.Embedder) bool { return e.Vectors == 3 && e.Waiting == 0 && e.State == "ok" })
	if raw, out := searchFor(); len(out.Results) == 0 || out.Results[0].ID != "invoices" || out.Ranking != contract.RankingFused {
		t.Errorf("with vectors, %q found %s; want invoices first, fused", need, raw)
	}

	for _, c := range []struct {
		mode int32
		want string
	}{
		{embedNotAnObject, `answered "vectors"; want an object`},
		{embedShortVectors, "vector 0 has 3 numbers; want 35 numbers"},
	} {
		mode.Store(c.mode)
		if raw, _ := searchFor(); raw != lexical {
			t.Errorf("an embedder answering %q: %s; want the lexical answer %s", c.want, raw, lexical)
		}
		embedderState(ctx, t, caller, func(e *diagnostics.Embedder) bool {
			return e.State == "failing" && strings.Contains(e.LastError, c.want) && e.LastErrorAt != ""
		})
		mode.Store(embedWell)
		if _, out := searchFor(); out.Ranking != contract.RankingFused {
			t.Errorf("after the embedder answers well again: ranking %q, want fused", out.Ranking)
		}
	}

	emb.Close() //nolint:errcheck // the embedder goes away
	if err := srv.WaitFunctionGone(ctx, "test::embed"); err != nil {
		t.Fatal(err)
	}
	if raw, _ := searchFor(); raw != lexical {
		t.Errorf("without the embedder function: %s; want the lexical answer %s", raw, lexical)
	}
	embedderState(ctx, t, caller, func(e *diagnostics.Embedder) bool { return e.State == "failing" && e.Vectors == 3 })

	caller.Close() //nolint:errcheck // its goroutines must not count as the worker's
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-ran; err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v", err)
	}
	if g := workerGoroutinesGone(); g != "" {
		t.Errorf("goroutines left after Close:\n%s", g)
	}
}

// embedderState asks skills::diagnostics until its embedder section
// satisfies ok, and fails the test at ctx's deadline with the last one.
func embedderState(ctx context.Context, t *testing.T, caller *iii.Client, ok func(*diagnostics.Embedder) bool) {
	t.Helper()
	var last string
	for {
		raw, err := caller.Call(ctx, contract.FnSkillsDiagnostics, map[string]any{})
		if err == nil {
			var rep diagnostics.Report
			if json.Unmarshal(raw, &rep) == nil && rep.Search != nil && rep.Search.Embedder != nil {
				b, _ := json.Marshal(rep.Search.Embedder)
				last = string(b)
				if ok(rep.Search.Embedder) {
					return
				}
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("skills::diagnostics never reported the embedder as expected; last: %s", last)
		case <-time.After(10 * time.Millisecond): // the next look; the deadline decides failure
		}
	}
}

// An answer that is not an object of vectors is refused with what was
// wrong; the vectors' numbers are checked by the search package.
func TestDecodeVectors(t *testing.T) {
	for _, c := range []struct{ raw, want string }{
		{`{"vectors":[[1,2],[3,4]]}`, ""},
		{`[[1,2]]`, `answered [[1,2]]; want an object`},
		{`null`, `answered null; want an object`},
		{``, `answered nothing; want an object`},
		{`{"vector":[[1]]}`, `answered {"vector":[[1]]}; want an object`},
		{`{"vectors":[[1,"2"]]}`, `want an object`},
		{`{"vectors":[[1e39]]}`, `want an object`},
	} {
		vecs, err := decodeVectors(json.RawMessage(c.raw))
		switch {
		case c.want == "" && (err != nil || len(vecs) != 2 || vecs[1][1] != 4):
			t.Errorf("%s: %v, %v", c.raw, vecs, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v; want one with %q", c.raw, err, c.want)
		}
	}
}
