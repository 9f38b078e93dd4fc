package engine

import (
	"testing"

	"github.com/gorilla/websocket"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// TestReviewInvalidUTF8IsNotAccepted (§1.2 frame encoding, fidelity): the
// engine reads frames with tungstenite/axum, which refuses a text message
// that is not valid UTF-8 (Error::Utf8, the socket ends), and parses binary
// frames with serde_json::from_slice, which refuses invalid UTF-8 inside
// strings (the frame is dropped). gorilla validates neither and
// wire.Decode repairs strings to U+FFFD, so this engine registers
// "caf\uFFFD" and keeps serving: a client that emits non-UTF-8 frames (see
// iii.TestReviewRawJSONWithInvalidUTF8) passes here and breaks against the
// real engine.
func TestReviewInvalidUTF8IsNotAccepted(t *testing.T) {
	const frame = "{\"type\":\"registerfunction\",\"id\":\"caf\xe9\"}"

	t.Run("text frame ends the connection", func(t *testing.T) {
		s := newTestServer(t)
		p := dial(t, s)
		p.sendRaw(websocket.TextMessage, frame)
		// The ping's write may already fail if the engine closed first;
		// either way the recv below must not get an answer.
		_ = p.trySend(wire.Ping{})
		if m, err := p.recv(); err == nil {
			t.Errorf("engine answered %s after a non-UTF-8 text frame; the real engine ends the socket", m.MessageType())
		}
		for _, f := range s.Functions() {
			if f.ID == "caf\uFFFD" {
				t.Errorf("non-UTF-8 text frame registered function %q", f.ID)
			}
		}
	})

	t.Run("binary frame is dropped", func(t *testing.T) {
		s := newTestServer(t)
		p := dial(t, s)
		p.sendRaw(websocket.BinaryMessage, frame)
		p.barrier()
		for _, f := range s.Functions() {
			if f.ID == "caf\uFFFD" {
				t.Errorf("binary frame with a non-UTF-8 string registered function %q; serde_json refuses it", f.ID)
			}
		}
	})
}

// TestReviewReRegisteringATriggerIDReplacesTheLiveBinding (§2.6 "the same
// trigger id registered again (by anyone) replaces the previous binding",
// §8.11): when the new registration names a type nobody provides, the new
// binding is parked and the old live one must go (it once stayed, so the
// id existed twice and the old provider kept a stale subscriber).
func TestReviewReRegisteringATriggerIDReplacesTheLiveBinding(t *testing.T) {
	s := newTestServer(t)
	prov, sub := dial(t, s), dial(t, s)
	provide(prov, changeType)
	sub.send(subscription)
	expect[wire.RegisterTrigger](prov)
	moved := subscription
	moved.TriggerType = "nobody::provides-this"
	sub.send(moved)
	sub.barrier()
	var got []Binding
	for _, b := range s.Bindings() {
		if b.ID == subscription.ID {
			got = append(got, b)
		}
	}
	if len(got) != 1 || !got[0].Parked || got[0].TriggerType != moved.TriggerType {
		t.Errorf("bindings with id %s after re-registration: %+v, want only the parked %s one",
			subscription.ID, got, moved.TriggerType)
	}
}
