package worker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/redistest"
)

// Read-your-write across engines (docs/decisions.md D78): two local
// engines on one Redis, a skills worker on each, the reconcile off
// (reconcile_ms 0), so nothing but a write's version can bring a write
// through one engine to the other's replica. Writers register and
// unregister their own skills through either engine at random, all at
// once; after each write, the other engine is read with the write's
// version in `after` (skills::list, the index, skills::resources-read,
// skill::fetch, skill::search in turn), and every such read must show
// the write on that very call. The same read without the version is made
// first and only counted: it finds the write when the other replica had
// heard of it some other way.
func TestReadsAfterAVersionSeeTheWriteOnTheNextCall(t *testing.T) {
	redis := redistest.NewServer(t, redistest.Options{})
	cfg := config.Default()
	cfg.ReconcileMS = 0
	cfg = config.Resolve(cfg, config.ModeWorker)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	pair := startEnginePair(ctx, t, redis.URL, cfg)
	for _, r := range pair {
		if err := r.srv.WaitFunction(ctx, contract.FnSkillSearch); err != nil {
			t.Fatal(err)
		}
	}

	// Load beside the checked writes: registrations of other skills
	// through both engines, without pause, until the checked writes end
	// (each replica's catalog follows its own engine's events meanwhile).
	loadCtx, stopLoad := context.WithCancel(ctx)
	var loadWG sync.WaitGroup
	var loaded atomic.Int64
	for l := range loaders {
		loadWG.Add(1)
		go func() {
			defer loadWG.Done()
			for n := 0; loadCtx.Err() == nil; n++ {
				id := fmt.Sprintf("load/l%d-%d", l, n%50)
				if _, err := pair[n%2].caller.Call(loadCtx, contract.FnSkillsRegister, map[string]string{"id": id, "skill": "# Load\n\nWrite " + strconv.Itoa(n)}); err == nil {
					loaded.Add(1)
				}
			}
		}()
	}

	var (
		mu              sync.Mutex
		failures        []string
		byRead          = map[string][2]int{} // read -> reads without the version that showed the write, reads
		tookAfter, took []time.Duration       // each read with the version, and without
	)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("ryw/writer-%d", w)
			for n := range writes {
				via, other := pair[(w+n)%2], pair[(w+n+1)%2]
				marker := word(w*writes + n)
				body := fmt.Sprintf("# %s\n\nWrite %d by writer %d through %s, marked %s.", id, n, w, via.name, marker)
				deleted := n%5 == 4
				version, err := writeVersioned(ctx, via, id, body, deleted)
				if err != nil {
					t.Errorf("write %d of %s through %s: %v", n, id, via.name, err)
					return
				}
				read := readers[(n+w)%len(readers)] // each read after registers and unregisters
				want := expect{id: id, body: body, marker: marker, desc: fmt.Sprintf("Write %d by writer %d ", n, w), deleted: deleted}
				t0 := time.Now()
				hit, _ := read.check(ctx, other, want, nil)
				t1 := time.Now()
				seen, why := read.check(ctx, other, want, []string{version})
				t2 := time.Now()
				mu.Lock()
				took, tookAfter = append(took, t1.Sub(t0)), append(tookAfter, t2.Sub(t1))
				c := byRead[read.name]
				c[1]++
				if hit {
					c[0]++
				}
				byRead[read.name] = c
				if !seen {
					failures = append(failures, fmt.Sprintf("%s of %s (write %d through %s) read through %s with its version: %s",
						map[bool]string{true: "unregister", false: "register"}[deleted], id, n, via.name, other.name, why))
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	stopLoad()
	loadWG.Wait()
	for _, f := range failures {
		t.Error(f)
	}
	hits := 0
	for _, c := range byRead {
		hits += c[0]
	}
	t.Logf("%d reads with the writer's version through the other engine, beside %.0f other registrations/s: %d showed the write on that call",
		len(tookAfter), float64(loaded.Load())/elapsed.Seconds(), len(tookAfter)-len(failures))
	t.Logf("the same reads without it: %d of %d showed the write (%.0f%% missed); by read: %v",
		hits, len(took), 100*float64(len(took)-hits)/float64(len(took)), byRead)
	slices.Sort(took)
	slices.Sort(tookAfter)
	t.Logf("read latency p50/p99: %v/%v with the version, %v/%v without",
		tookAfter[len(tookAfter)/2], tookAfter[len(tookAfter)*99/100], took[len(took)/2], took[len(took)*99/100])
}

// The checked writers and their writes each, and the loaders beside them.
const (
	writers = 8
	writes  = 25
	loaders = 4
)

// writeVersioned registers body as id through r, or unregisters id, and returns
// the version the reply names.
func writeVersioned(ctx context.Context, r *replica, id, body string, unregister bool) (string, error) {
	var res json.RawMessage
	var err error
	if unregister {
		res, err = r.caller.Call(ctx, contract.FnSkillsUnregister, map[string]any{"id": id, "version": true})
	} else {
		res, err = r.caller.Call(ctx, contract.FnSkillsRegister, map[string]any{"id": id, "skill": body, "version": true})
	}
	if err != nil {
		return "", err
	}
	var reply struct{ Version string }
	if err := json.Unmarshal(res, &reply); err != nil || reply.Version == "" {
		return "", fmt.Errorf("the reply %s names no version", clip(string(res)))
	}
	return reply.Version, nil
}

// expect is what a read after a write should show.
type expect struct {
	id, body, marker string
	desc             string // the start of its description, as listed
	deleted          bool
}

// reader is one read a caller may make after a write, and how to tell
// whether it shows the write.
type reader struct {
	name  string
	check func(ctx context.Context, r *replica, want expect, after []string) (ok bool, why string)
}

// readers are the reads that take `after`, made in turn.
var readers = []reader{
	{"skills::list", func(ctx context.Context, r *replica, want expect, after []string) (bool, string) {
		res, err := r.caller.Call(ctx, contract.FnSkillsList, withAfter(nil, after))
		if err != nil {
			return false, err.Error()
		}
		var list struct {
			Skills []struct{ ID, SHA256 string }
		}
		_ = json.Unmarshal(res, &list)
		sum := sha256.Sum256([]byte(want.body))
		for _, s := range list.Skills {
			if s.ID == want.id {
				if want.deleted {
					return false, "still listed"
				}
				return s.SHA256 == hex.EncodeToString(sum[:]), "listed with sha256 " + s.SHA256
			}
		}
		return want.deleted, "not listed"
	}},
	{"iii://skills", func(ctx context.Context, r *replica, want expect, after []string) (bool, string) {
		text, err := readText(ctx, r, "iii://skills", after)
		if err != nil {
			return false, err.Error()
		}
		if want.deleted {
			return !strings.Contains(text, "iii://"+want.id), "the index still names it"
		}
		return strings.Contains(text, want.desc), "the index does not describe it as " + want.desc
	}},
	{"skills::resources-read", func(ctx context.Context, r *replica, want expect, after []string) (bool, string) {
		text, err := readText(ctx, r, "iii://"+want.id, after)
		if want.deleted {
			var ie *iii.Error
			return errors.As(err, &ie) && ie.Code == contract.CodeNotFound, fmt.Sprintf("read %q, %v", clip(text), err)
		}
		return err == nil && text == want.body, fmt.Sprintf("read %q, %v", clip(text), err)
	}},
	{"skill::fetch", func(ctx context.Context, r *replica, want expect, after []string) (bool, string) {
		res, err := r.caller.Call(ctx, contract.FnSkillFetch, withAfter(map[string]any{"uri": "iii://" + want.id}, after))
		if want.deleted {
			var ie *iii.Error
			return errors.As(err, &ie) && ie.Code == contract.CodeNotFound, fmt.Sprintf("fetched %s, %v", clip(string(res)), err)
		}
		var doc string
		_ = json.Unmarshal(res, &doc)
		return err == nil && strings.Contains(doc, want.marker), fmt.Sprintf("fetched %q, %v", clip(doc), err)
	}},
	{"skill::search", func(ctx context.Context, r *replica, want expect, after []string) (bool, string) {
		res, err := r.caller.Call(ctx, contract.FnSkillSearch, withAfter(map[string]any{"query": want.marker, "limit": 50}, after))
		if err != nil {
			return false, err.Error()
		}
		var out contract.SearchResults
		_ = json.Unmarshal(res, &out)
		if want.deleted {
			for _, h := range out.Results {
				if h.ID == want.id {
					return false, "still found"
				}
			}
			return true, ""
		}
		ok := len(out.Results) > 0 && out.Results[0].ID == want.id && strings.HasPrefix(out.Results[0].Description, want.desc)
		return ok, fmt.Sprintf("searching its marker %s found %s", want.marker, clip(string(res)))
	}},
}

func withAfter(payload map[string]any, after []string) map[string]any {
	if payload == nil {
		payload = map[string]any{}
	}
	if after != nil {
		payload["after"] = after
	}
	return payload
}

func readText(ctx context.Context, r *replica, uri string, after []string) (string, error) {
	res, err := r.caller.Call(ctx, contract.FnSkillsResourcesRead, withAfter(map[string]any{"uri": uri}, after))
	if err != nil {
		return "", err
	}
	var out struct{ Contents []struct{ Text string } }
	if err := json.Unmarshal(res, &out); err != nil || len(out.Contents) != 1 {
		return "", fmt.Errorf("resources-read answered %s", clip(string(res)))
	}
	return out.Contents[0].Text, nil
}

// word is a distinct lowercase word for n, for search to find one write
// by.
func word(n int) string {
	b := []byte("zq")
	for {
		b = append(b, byte('a'+n%26))
		n /= 26
		if n == 0 {
			return string(append(b, "vx"...))
		}
	}
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}
