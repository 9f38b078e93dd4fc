package engine

import (
	"testing"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// FuzzRoute feeds arbitrary frames to the engine through the same path a
// socket's read loop uses: whatever a worker sends, the engine must not
// panic. The seeds run as part of the normal test suite.
func FuzzRoute(f *testing.F) {
	const id = "3f1c2b4e-7d9a-4c1e-9b2f-0a6e8d5c4b3a"
	for _, seed := range []string{
		`{"type":"registerfunction","id":"f","request_format":{"b":1,"a":2},"metadata":{"internal":true}}`,
		`{"type":"registerfunction","id":"h","invocation":{"url":"http://x"}}`,
		`{"type":"unregisterfunction","id":"f"}`,
		`{"type":"invokefunction","invocation_id":"` + id + `","function_id":"f","data":{"x":[1,2.5e3,null]}}`,
		`{"type":"invokefunction","function_id":"f","data":"s","action":{"type":"void"}}`,
		`{"type":"invokefunction","invocation_id":"` + id + `","function_id":"x","data":{},"action":{"type":"enqueue","queue":"q"}}`,
		`{"type":"invokefunction","invocation_id":"` + id + `","function_id":"state::set","data":{"scope":"s","key":"k","data":{"v":1}}}`,
		`{"type":"invokefunction","invocation_id":"` + id + `","function_id":"engine::functions::info","data":{"function_ids":["f","f"]}}`,
		`{"type":"invokefunction","invocation_id":"` + id + `","function_id":"engine::workers::register","data":{"pid":1,"name":"\u202ew"}}`,
		`{"type":"invokefunction","invocation_id":"` + id + `","function_id":"engine::workers::list","data":{"search":"w"}}`,
		`{"type":"invokefunction","invocation_id":"` + id + `","function_id":"engine::functions::list","data":{"search":"F","workers":["a"]}}`,
		`{"type":"invocationresult","invocation_id":"` + id + `","function_id":"f","result":null}`,
		`{"type":"registertriggertype","id":"t","description":""}`,
		`{"type":"registertrigger","id":"b","trigger_type":"t","function_id":"f","config":{}}`,
		`{"type":"triggerregistrationresult","id":"b","trigger_type":"t","function_id":"f","error":{"code":"c","message":"m"}}`,
		`{"type":"unregistertrigger","id":"b"}`,
		`{"type":"reattach","previous_worker_id":"` + id + `","reattach_token":"x"}`,
		`{"type":"ping"}`, `{"type":"pong"}`, `{"type":"registerservice","id":"s"}`,
		`{"type":"workerregistered","worker_id":"w"}`, `not json`, `[]`, `null`,
	} {
		f.Add([]byte(seed))
	}
	s := newTestServerWith(f, Options{})
	c := newConn(s, nil, nil, "192.0.2.1:9")
	s.mu.Lock()
	s.workers[c.id] = c
	s.mu.Unlock()
	f.Fuzz(func(t *testing.T, frame []byte) {
		m, err := wire.Decode(frame)
		if err != nil {
			return
		}
		s.route(c, m)
		c.out.take()
	})
}
