package catalog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii"
)

// A signal is read strictly: a scope and a key that are strings not
// empty, the key at most 4096 bytes, and a fingerprint that is null, 64
// hex digits or absent. Anything else is dropped.
func TestReadSignal(t *testing.T) {
	fp := strings.Repeat("ab", 32)
	var sum valueSum
	_, _ = hex.Decode(sum[:], []byte(fp))
	for _, tc := range []struct {
		data    string
		ok      bool
		removed bool
		sum     *valueSum
	}{
		{`{"scope":"skills","key":"a","fingerprint":"` + fp + `"}`, true, false, &sum},
		{`{"scope":"skills","key":"a","fingerprint":null}`, true, true, nil},
		{`{"scope":"skills","key":"a"}`, true, false, nil},
		{`{"scope":"skills","key":"a","fingerprint":"abc"}`, false, false, nil},
		{`{"scope":"skills","key":"a","fingerprint":"` + strings.Repeat("zz", 32) + `"}`, false, false, nil},
		{`{"scope":"skills","key":"a","fingerprint":7}`, false, false, nil},
		{`{"scope":"","key":"a"}`, false, false, nil},
		{`{"scope":"skills","key":""}`, false, false, nil},
		{`{"scope":"skills","key":7}`, false, false, nil},
		{`{"scope":"skills","key":"` + strings.Repeat("k", maxSignalKey+1) + `"}`, false, false, nil},
		{`"junk"`, false, false, nil},
		{`null`, false, false, nil},
	} {
		scope, key, gotSum, removed, err := readSignal(json.RawMessage(tc.data))
		if (err == nil) != tc.ok {
			t.Errorf("readSignal(%.80s): err %v, want ok %v", tc.data, err, tc.ok)
			continue
		}
		if tc.ok && (scope != "skills" || key != "a" || removed != tc.removed || !cmp.Equal(gotSum, tc.sum)) {
			t.Errorf("readSignal(%s) = %q %q %v %v", tc.data, scope, key, gotSum, removed)
		}
	}
}

// countingClient counts the state::get calls a catalog on a real client
// makes, keeping the client's other methods (InvokeVoid: it can signal).
type countingClient struct {
	*iii.Client
	mu   sync.Mutex
	gets int
}

func (c *countingClient) Call(ctx context.Context, fn string, data any) (json.RawMessage, error) {
	if fn == "state::get" {
		c.mu.Lock()
		c.gets++
		c.mu.Unlock()
	}
	return c.Client.Call(ctx, fn, data)
}

func (c *countingClient) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gets
}

// eventually polls cond until it holds, for at most waitTimeout: for
// what no scope change announces.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never %s (within %s)", what, waitTimeout)
		}
		time.Sleep(5 * time.Millisecond) // polling: cond decides
	}
}

// fingerprint is the hex SHA-256 of the bytes state::get gives for key.
func (r *rig) fingerprint(t *testing.T, key string) string {
	t.Helper()
	v, err := r.writer.Call(context.Background(), "state::get", map[string]string{"scope": "skills", "key": key})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(v)
	return hex.EncodeToString(sum[:])
}

func (r *rig) publish(t *testing.T, data string) {
	t.Helper()
	if _, err := r.writer.Call(context.Background(), "publish", map[string]any{"topic": SignalTopic, "data": json.RawMessage(data)}); err != nil {
		t.Fatal(err)
	}
}

// On an engine with pubsub, the catalog publishes what its state events
// bring (D75), finds what another replica signals, and reads nothing for
// a signal it can use nothing of: its own fingerprint, another scope, a
// delete of a key it does not hold, a message that is not a signal.
func TestSignalOnTheLocalEngine(t *testing.T) {
	var counted *countingClient
	changes := &changeLog{}
	r := newRigWith(t, engine.Options{PubSub: engine.PubSubLocal}, rigSetup{
		wrap:      func(c *iii.Client) Engine { counted = &countingClient{Client: c}; return counted },
		configure: func(c *Catalog) { c.OnChange(changes.add) },
	})
	eventually(t, "loaded with the signal", func() bool { return r.scope.Valid() && r.cat.Freshness().Signal == SignalPubSub })
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if err := r.srv.WaitBinding(ctx, r.cat.signalTriggerID()); err != nil {
		t.Fatal(err)
	}
	var spyMu sync.Mutex
	var heard []string
	r.writer.RegisterFunction(iii.Function{ID: "test::spy", Handler: func(_ context.Context, req iii.Request) (any, error) {
		spyMu.Lock()
		heard = append(heard, string(req.Data))
		spyMu.Unlock()
		return nil, nil
	}})
	r.writer.RegisterTrigger(iii.Trigger{ID: "spy", Type: "subscribe", FunctionID: "test::spy", Config: map[string]string{"topic": SignalTopic}})
	if err := r.srv.WaitBinding(ctx, "spy"); err != nil {
		t.Fatal(err)
	}

	// Another writer's state::set on this engine: the catalog's event
	// brings it, and the catalog signals it with the stored value's hash.
	if _, err := r.writer.Call(ctx, "state::set", map[string]any{"scope": "skills", "key": "a", "value": json.RawMessage(row("a", "by event"))}); err != nil {
		t.Fatal(err)
	}
	want := `{"fingerprint":"` + r.fingerprint(t, "a") + `","key":"a","scope":"skills"}` // as the engine encodes it
	eventually(t, "the event's change signalled", func() bool {
		spyMu.Lock()
		defer spyMu.Unlock()
		return len(heard) > 0 && heard[0] == want
	})

	// A write through another engine (no event here), then its signal.
	if err := r.srv.WriteStateUnannounced("skills", "b", row("b", "through B")); err != nil {
		t.Fatal(err)
	}
	r.publish(t, `{"scope":"skills","key":"b","fingerprint":"`+r.fingerprint(t, "b")+`"}`)
	r.until(t, "the signalled write found", func() bool { body, _ := r.body("b"); return body == "through B" })

	// Messages it can use nothing of cost no read.
	gets := counted.count()
	for _, m := range []string{
		`{"scope":"skills","key":"b","fingerprint":"` + r.fingerprint(t, "b") + `"}`, // its own fingerprint: an echo
		`{"scope":"prompts","key":"b"}`,                                              // a scope it does not mirror
		`{"scope":"skills","key":"never","fingerprint":null}`,                        // a delete of a key it does not hold
		`{"scope":"skills"}`, `"junk"`,
	} {
		r.publish(t, m)
	}
	if err := r.srv.WriteStateUnannounced("skills", "c", row("c", "through B")); err != nil {
		t.Fatal(err)
	}
	r.publish(t, `{"scope":"skills","key":"c"}`) // no fingerprint: look anyway
	r.until(t, "the last signalled write found", func() bool { _, ok := r.body("c"); return ok })
	if n := counted.count() - gets; n != 1 {
		t.Errorf("the catalog read %d keys for those signals, want 1 (c)", n)
	}
	wantChanges := []Change{
		{Scope: "skills", Key: "a", Found: FoundEvent},
		{Scope: "skills", Key: "b", Found: FoundSignal},
		{Scope: "skills", Key: "c", Found: FoundSignal},
	}
	if diff := cmp.Diff(wantChanges, changes.all()); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	if f := r.cat.Freshness(); f.BySignal != 2 || f.ByEvent != 1 {
		t.Errorf("freshness %+v, want 2 changes by signal and 1 by event", f)
	}
}
