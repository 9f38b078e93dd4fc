package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii"
)

// afterRig is a catalog whose engine announces nothing of the writes the
// test makes (another engine sharing the store, D73) and that never
// reconciles: only a read after a version can bring them in (D78).
type afterRig struct {
	*rig
	gets    *getCounter
	changes *changeLog
	view    *View
}

func newAfterRig(t *testing.T, wrap func(Engine) Engine) afterRig {
	t.Helper()
	gets, changes := &getCounter{}, &changeLog{}
	r := newRigWith(t, engine.Options{}, rigSetup{
		seed: func(e *engine.Engine) {
			if err := e.SetState("skills", "a", row("a", "seeded")); err != nil {
				t.Fatal(err)
			}
		},
		wrap: func(c *iii.Client) Engine {
			gets.Engine = c
			if wrap != nil {
				return wrap(gets)
			}
			return gets
		},
		configure: func(c *Catalog) { c.OnChange(changes.add) },
	})
	r.until(t, "loaded", func() bool { return r.scope.Valid() && r.scope.Len() == 1 })
	view := NewView(ViewConfig{Skills: r.scope, Caller: r.writer, SkillsScope: "skills", PromptsScope: "prompts", Timeout: 2 * time.Second})
	return afterRig{rig: r, gets: gets, changes: changes, view: view}
}

// unannounced writes value at key as another engine would (no state
// event) and returns the version its reply would carry: the stored
// bytes, as state::get gives them.
func (r afterRig) unannounced(t *testing.T, key string, value json.RawMessage) string {
	t.Helper()
	if err := r.srv.WriteStateUnannounced("skills", key, value); err != nil {
		t.Fatal(err)
	}
	if value == nil {
		return DeletedVersion("skills", key).Token()
	}
	stored, err := r.writer.Call(t.Context(), "state::get", map[string]string{"scope": "skills", "key": key})
	if err != nil {
		t.Fatal(err)
	}
	return VersionOf("skills", key, stored).Token()
}

// A read given the version of a write the mirror has not heard of reads
// the key from state before it returns, and the change is announced once,
// as an event's would be; a version the mirror holds costs nothing.
func TestReadAfterReadsAWriteNoEventAnnounced(t *testing.T) {
	r := newAfterRig(t, nil)
	ctx := t.Context()

	edited := r.unannounced(t, "a", row("a", "through B"))
	if b, _ := r.body("a"); b != "seeded" {
		t.Fatalf("before the read, the mirror holds %q: the write was announced after all", b)
	}
	if err := r.view.ReadAfter(ctx, After{edited}); err != nil {
		t.Fatal(err)
	}
	if b, _ := r.body("a"); b != "through B" {
		t.Errorf("after ReadAfter the mirror holds %q, want %q", b, "through B")
	}
	gets := r.gets.count()
	if err := r.view.ReadAfter(ctx, After{edited}); err != nil {
		t.Fatal(err)
	}
	if n := r.gets.count() - gets; n != 0 {
		t.Errorf("a version the mirror holds read state %d times, want 0", n)
	}

	added := r.unannounced(t, "b", row("b", "new"))
	gone := r.unannounced(t, "a", nil)
	if err := r.view.ReadAfter(ctx, After{added, gone}); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.body("a"); ok {
		t.Error("a deleted key is still held after reading after its delete")
	}
	if b, _ := r.body("b"); b != "new" {
		t.Errorf("b = %q after reading after its write, want %q", b, "new")
	}

	// State has moved past the version: the newer value is served.
	older := r.unannounced(t, "c", row("c", "v1"))
	r.unannounced(t, "c", row("c", "v2"))
	if err := r.view.ReadAfter(ctx, After{older}); err != nil {
		t.Fatal(err)
	}
	if b, _ := r.body("c"); b != "v2" {
		t.Errorf("c = %q after reading after an older version, want the newer %q", b, "v2")
	}

	want := []Change{
		{Scope: "skills", Key: "a", Found: FoundEvent},
		{Scope: "skills", Key: "b", Found: FoundEvent},
		{Scope: "skills", Key: "a", Removed: true, Found: FoundEvent},
		{Scope: "skills", Key: "c", Found: FoundEvent},
	}
	if diff := cmp.Diff(want, r.changes.all()); diff != "" {
		t.Errorf("changes announced (-want +got):\n%s", diff)
	}
}

// A version of a scope the worker does not serve is refused, naming it.
func TestReadAfterRefusesAnotherScope(t *testing.T) {
	r := newAfterRig(t, nil)
	token := DeletedVersion("elsewhere", "a").Token()
	err := r.view.ReadAfter(t.Context(), After{token})
	var ce *contract.Error
	if !errors.As(err, &ce) || ce.Code != contract.CodeInvalidArgument || !strings.Contains(ce.Message, `"elsewhere"`) {
		t.Errorf("ReadAfter(another scope) = %v, want invalid_argument naming the scope", err)
	}
}

// stalledGets never answers state::get: the engine is busy or gone.
type stalledGets struct{ Engine }

func (s stalledGets) Call(ctx context.Context, fn string, data any) (json.RawMessage, error) {
	if fn == "state::get" {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return s.Engine.Call(ctx, fn, data)
}

// The wait is bounded by the state timeout: a key that cannot be read is
// an unavailable error naming the version, and the scope, which the
// caller's deadline cut short rather than the engine, still vouches for
// itself.
func TestReadAfterIsBounded(t *testing.T) {
	r := newAfterRig(t, func(e Engine) Engine { return stalledGets{e} })
	token := r.unannounced(t, "a", row("a", "through B"))
	r.view.skillRows.timeout = 100 * time.Millisecond
	start := time.Now()
	err := r.view.ReadAfter(t.Context(), After{token})
	var ce *contract.Error
	if !errors.As(err, &ce) || ce.Code != contract.CodeUnavailable || !strings.Contains(ce.Message, token) {
		t.Fatalf("ReadAfter with state::get stalled = %v, want unavailable naming the version", err)
	}
	if took := time.Since(start); took > waitTimeout {
		t.Errorf("ReadAfter took %s with a 100ms timeout", took)
	}
	if !r.scope.Valid() {
		t.Error("a read the caller's deadline cut short made the scope stop vouching for itself")
	}
}

// `after` is one token or a list of at most MaxAfter; anything else is
// refused before anything is read, naming the value and what is allowed.
func TestAfterRejectsBadInput(t *testing.T) {
	good := DeletedVersion("skills", "a").Token()
	many := make([]string, MaxAfter+1)
	for i := range many {
		many[i] = good
	}
	manyJSON, _ := json.Marshal(many)
	for _, tc := range []struct {
		name, payload, want string
	}{
		{"a number", `5`, "`after` must be a version string from a write's reply, or a list of at most 64 of them; got 5"},
		{"an object", `{"v":1}`, "`after` must be a version string"},
		{"a list with a number", `["` + good + `", 7]`, "`after` must be a version string"},
		{"too many", string(manyJSON), "`after` names 65 versions; at most 64"},
		{"not a token", `"hello"`, `version "hello" is not one this worker issued (it does not start with "v1.")`},
		{"three parts", `"v1.a.b"`, `is not one this worker issued (it does not have four dot-separated parts)`},
		{"bad base64", `"v1.***.YQ.-"`, `(its scope or key does not decode)`},
		{"short fingerprint", `"v1.c2tpbGxz.YQ.YWJj"`, `(its fingerprint is not a base64url SHA-256)`},
		{"too long", `"v1.` + strings.Repeat("A", maxTokenBytes) + `"`, "bytes; at most 4096"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var in struct {
				After After `json:"after"`
			}
			err := json.Unmarshal([]byte(`{"after":`+tc.payload+`}`), &in)
			var ce *contract.Error
			if !errors.As(err, &ce) || ce.Code != contract.CodeInvalidArgument || !strings.Contains(ce.Message, tc.want) {
				t.Errorf("after = %.60s: error %v, want invalid_argument containing %q", tc.payload, err, tc.want)
			}
		})
	}
	for _, ok := range []string{`null`, `"` + good + `"`, `["` + good + `"]`, `[]`} {
		var in struct {
			After After `json:"after"`
		}
		if err := json.Unmarshal([]byte(`{"after":`+ok+`}`), &in); err != nil {
			t.Errorf("after = %s refused: %v", ok, err)
		}
	}
}

// A token names its scope, key and fingerprint, and reads back as it was
// made, for keys of every shape a skill id or prompt name can take.
func TestVersionTokensRoundTrip(t *testing.T) {
	for _, v := range []WriteVersion{
		VersionOf("skills", "a/b-c_d/e", json.RawMessage(`{"id":"a/b-c_d/e"}`)),
		VersionOf("my scope", strings.Repeat("k", 1024), json.RawMessage(`{}`)),
		DeletedVersion("prompts", "send-email"),
	} {
		got, err := ParseVersion(v.Token())
		if err != nil {
			t.Fatalf("ParseVersion(%s) = %v", v.Token(), err)
		}
		if got != v {
			t.Errorf("ParseVersion(Token()) = %+v, want %+v", got, v)
		}
	}
	if (WriteVersion{}).Token() != "" {
		t.Error("the zero version has a token")
	}
}

// A read outside the queue's readers waits for a read of the key in
// flight, and takes nothing from the queue (D72: never two reads of one
// key at once). On a fake clock: synctest.Wait shows the claim blocked.
func TestKeyQueueClaimWaitsForAReadInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		q := newKeyQueue()
		a := stateEvent{Scope: "s", Key: "a"}
		q.push(a)
		if got, ok := q.pop(ctx); !ok || got != a {
			t.Fatalf("pop = %v %v, want a", got, ok)
		}
		claimed := make(chan bool, 1)
		go func() { claimed <- q.claim(ctx, a) }()
		synctest.Wait()
		select {
		case <-claimed:
			t.Fatal("claim returned while a read of the key was in flight")
		default:
		}
		q.push(a) // an event while both wait: left in the queue
		q.done(a)
		if ok := <-claimed; !ok {
			t.Fatal("claim failed")
		}
		popped := make(chan stateEvent, 1)
		go func() {
			if ev, ok := q.pop(ctx); ok {
				popped <- ev
			}
		}()
		synctest.Wait()
		select {
		case <-popped:
			t.Fatal("the queue handed out a key claimed outside it")
		default:
		}
		q.done(a)
		if got := <-popped; got != a {
			t.Errorf("pop after the claim's done = %v, want a (the push made meanwhile)", got)
		}
	})
}

// BenchmarkVersionToken is what a version adds to a write's reply: the
// fingerprint is the one the own-write check hashes anyway (D51), so the
// token's encoding is all (D78).
func BenchmarkVersionToken(b *testing.B) {
	v := VersionOf("skills", "team/deploy-checklist", json.RawMessage(`{"id":"team/deploy-checklist"}`))
	for b.Loop() {
		_ = v.Token()
	}
}
