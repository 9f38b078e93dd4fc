package engine

import (
	"encoding/json"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// encodeStateEvent is the payload of a state event, byte for byte what
// encoding/json makes of ev (mustEncode), written straight when both
// values are canonical, which every value this engine stored is:
// encoding/json would only have copied them after checking them with its
// byte-at-a-time scanner, twice the size of a stored row per write, which
// only writes pay (docs/decisions.md D77). A value that is not canonical
// (another program's row in a shared Redis) takes encoding/json's way.
// TestStateEventEncodingIsEncodingJSONs holds it to mustEncode.
func encodeStateEvent(ev stateEvent) json.RawMessage {
	if !isCanonical(ev.OldValue) || !isCanonical(ev.NewValue) {
		return mustEncode(ev)
	}
	out := make([]byte, 0, len(`{"type":"","event_type":"","scope":"","key":"","old_value":,"new_value":}`)+
		len(ev.Type)+len(ev.EventType)+len(ev.Scope)+len(ev.Key)+len(ev.OldValue)+len(ev.NewValue)+8)
	out = wire.AppendJSONString(append(out, `{"type":`...), ev.Type)
	out = wire.AppendJSONString(append(out, `,"event_type":`...), ev.EventType)
	out = wire.AppendJSONString(append(out, `,"scope":`...), ev.Scope)
	out = wire.AppendJSONString(append(out, `,"key":`...), ev.Key)
	out = append(append(out, `,"old_value":`...), ev.OldValue...)
	out = append(append(out, `,"new_value":`...), ev.NewValue...)
	return append(out, '}')
}
