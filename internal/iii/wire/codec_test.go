package wire

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const testID = "3f1c2b4e-7d9a-4c1e-9b2f-0a6e8d5c4b3a"

func rawJSON(s string) json.RawMessage { return json.RawMessage(s) }

// everyFrame holds each frame type twice: with only required fields and
// with every field set.
var everyFrame = []Message{
	RegisterFunction{ID: "skills::register"},
	RegisterFunction{ID: "skills::register", Description: "Create <or> replace", RequestFormat: rawJSON(`{"type":"object"}`),
		ResponseFormat: rawJSON(`{"type":"string"}`), Metadata: rawJSON(`{"internal":true}`), Invocation: rawJSON(`{"url":"http://x"}`)},
	UnregisterFunction{ID: "f"},
	InvokeFunction{FunctionID: "state::get", Data: rawJSON(`{}`)},
	InvokeFunction{InvocationID: testID, FunctionID: "state::get", Data: rawJSON(`{"scope":"skills","key":"pdf"}`),
		Metadata: rawJSON(`{"m":1}`), Traceparent: "00-a-b-01", Baggage: "k=v", Action: &Action{Type: ActionEnqueue, Queue: "q"},
		Namespace: "ns"},
	InvocationResult{InvocationID: testID, FunctionID: "f"},
	InvocationResult{InvocationID: testID, FunctionID: "f", Result: rawJSON(`[1,"two"]`), Traceparent: "tp", Baggage: "bg"},
	InvocationResult{InvocationID: testID, FunctionID: "f", Error: &ErrorBody{Code: "c", Message: "m", Stacktrace: "s"}},
	RegisterTriggerType{ID: "skills::on-change"},
	RegisterTriggerType{ID: "skills::on-change", Description: "d", TriggerRequestFormat: rawJSON(`{}`),
		CallRequestFormat: rawJSON(`{"type":"object"}`), Namespace: "ns"},
	RegisterTrigger{ID: "t", TriggerType: "tt", FunctionID: "f", Config: rawJSON(`{}`)},
	RegisterTrigger{ID: "t", TriggerType: "tt", FunctionID: "f", Config: rawJSON(`{"a":1}`), Metadata: rawJSON(`{"b":2}`),
		Namespace: "ns", TriggerNamespace: "tns"},
	UnregisterTrigger{ID: "t"},
	UnregisterTrigger{ID: "t", TriggerType: "tt"},
	TriggerRegistrationResult{ID: "t", TriggerType: "tt", FunctionID: "f"},
	TriggerRegistrationResult{ID: "t", TriggerType: "tt", FunctionID: "f", Error: &ErrorBody{Code: "c", Message: "m"}},
	RegisterService{ID: "s"},
	RegisterService{ID: "s", Name: "n", Description: "d", ParentServiceID: "p"},
	Ping{},
	Pong{},
	WorkerRegistered{WorkerID: testID},
	WorkerRegistered{WorkerID: testID, ReattachToken: testID},
	Reattach{PreviousWorkerID: testID},
	Reattach{PreviousWorkerID: testID, ReattachToken: testID},
	RegistrationRejected{Code: CodeFunctionNamespaceConflict, Namespace: "default", OwnerWorkerID: ""},
	RegistrationRejected{Code: CodeWorkerNamespaceConflict, Namespace: "default", WorkerName: "skills",
		FunctionID: "f", OwnerWorkerID: "w"},
}

func TestRoundTrip(t *testing.T) {
	for _, m := range everyFrame {
		b, err := Encode(m)
		if err != nil {
			t.Fatalf("Encode(%#v): %v", m, err)
		}
		t.Run(string(b), func(t *testing.T) {
			if prefix := `{"type":"` + m.MessageType() + `"`; !strings.HasPrefix(string(b), prefix) {
				t.Errorf("encoding does not start with %s", prefix)
			}
			got, err := Decode(b)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if diff := cmp.Diff(m, got); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEncodeExact(t *testing.T) {
	tests := []struct {
		m    Message
		want string
	}{
		{m: Ping{}, want: `{"type":"ping"}`},
		{m: InvokeFunction{FunctionID: "f", Data: rawJSON(`{}`), Action: &Action{Type: ActionVoid}},
			want: `{"type":"invokefunction","function_id":"f","data":{},"action":{"type":"void"}}`},
		{m: InvocationResult{InvocationID: testID, FunctionID: "f", Result: rawJSON(`"<b>&</b>"`)},
			want: `{"type":"invocationresult","invocation_id":"` + testID + `","function_id":"f","result":"<b>&</b>"}`},
		{m: RegisterTriggerType{ID: "t"}, want: `{"type":"registertriggertype","id":"t","description":""}`},
		// Raw JSON is copied verbatim, whitespace included.
		{m: RegisterTrigger{ID: "t", TriggerType: "tt", FunctionID: "f", Config: rawJSON(`{ "a" : 1 }`)},
			want: `{"type":"registertrigger","id":"t","trigger_type":"tt","function_id":"f","config":{ "a" : 1 }}`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			got, err := Encode(tt.m)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("Encode = %s\nwant     %s", got, tt.want)
			}
		})
	}
	if _, err := Encode(InvokeFunction{FunctionID: "f", Data: rawJSON(`{`)}); err == nil {
		t.Error("Encode with invalid raw JSON succeeded")
	}
}

// TestDecodeAbsentAndNull: an explicit null in an optional field reads as
// absent, as the engine reads it; required raw fields keep a null.
func TestDecodeAbsentAndNull(t *testing.T) {
	tests := []struct {
		name, in string
		want     Message
	}{
		{name: "result absent", in: `{"type":"invocationresult","invocation_id":"` + testID + `","function_id":"f"}`,
			want: InvocationResult{InvocationID: testID, FunctionID: "f"}},
		{name: "result null", in: `{"type":"invocationresult","invocation_id":"` + testID + `","function_id":"f","result":null,"error":null,"traceparent":null}`,
			want: InvocationResult{InvocationID: testID, FunctionID: "f"}},
		{name: "optional fields null", in: `{"type":"invokefunction","invocation_id":null,"function_id":"f","data":{},"metadata":null,"action":null,"namespace":null}`,
			want: InvokeFunction{FunctionID: "f", Data: rawJSON(`{}`)}},
		{name: "required data null is kept", in: `{"type":"invokefunction","function_id":"f","data":null}`,
			want: InvokeFunction{FunctionID: "f", Data: rawJSON(`null`)}},
		{name: "unknown fields ignored", in: `{"type":"ping","extra":{"deep":[1]}}`, want: Ping{}},
		{name: "reattach token optional", in: `{"type":"workerregistered","worker_id":"w","reattach_token":null}`,
			want: WorkerRegistered{WorkerID: "w"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Decode (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeRejects(t *testing.T) {
	tests := []struct {
		name, in, wantErr string
	}{
		{name: "invalid JSON", in: `{"type":`, wantErr: "decode frame"},
		{name: "array", in: `[]`, wantErr: "decode frame"},
		{name: "no type", in: `{}`, wantErr: `missing required field "type"`},
		{name: "unknown type", in: `{"type":"unregistertriggertype","id":"x"}`, wantErr: `unknown frame type "unregistertriggertype"`},
		{name: "registerfunction id", in: `{"type":"registerfunction"}`, wantErr: `missing required field "id"`},
		{name: "unregisterfunction id", in: `{"type":"unregisterfunction","id":null}`, wantErr: `missing required field "id"`},
		{name: "invoke function_id", in: `{"type":"invokefunction","data":{}}`, wantErr: `missing required field "function_id"`},
		{name: "invoke data", in: `{"type":"invokefunction","function_id":"f"}`, wantErr: `missing required field "data"`},
		{name: "invoke non-UUID id", in: `{"type":"invokefunction","invocation_id":"42","function_id":"f","data":{}}`, wantErr: `"invocation_id" must be a UUID, got "42"`},
		{name: "invoke empty id", in: `{"type":"invokefunction","invocation_id":"","function_id":"f","data":{}}`, wantErr: `must be a UUID, got ""`},
		{name: "result invocation_id", in: `{"type":"invocationresult","function_id":"f"}`, wantErr: `missing required field "invocation_id"`},
		{name: "result non-UUID id", in: `{"type":"invocationresult","invocation_id":"x","function_id":"f"}`, wantErr: `"invocation_id" must be a UUID, got "x"`},
		{name: "result function_id", in: `{"type":"invocationresult","invocation_id":"` + testID + `"}`, wantErr: `missing required field "function_id"`},
		{name: "result error code", in: `{"type":"invocationresult","invocation_id":"` + testID + `","function_id":"f","error":{"message":"m"}}`, wantErr: `missing required field "error.code"`},
		{name: "result error message", in: `{"type":"invocationresult","invocation_id":"` + testID + `","function_id":"f","error":{"code":"c"}}`, wantErr: `missing required field "error.message"`},
		{name: "triggertype description", in: `{"type":"registertriggertype","id":"t"}`, wantErr: `missing required field "description"`},
		{name: "trigger config", in: `{"type":"registertrigger","id":"t","trigger_type":"tt","function_id":"f"}`, wantErr: `missing required field "config"`},
		{name: "trigger trigger_type", in: `{"type":"registertrigger","id":"t","function_id":"f","config":{}}`, wantErr: `missing required field "trigger_type"`},
		{name: "unregistertrigger id", in: `{"type":"unregistertrigger"}`, wantErr: `missing required field "id"`},
		{name: "registration result function_id", in: `{"type":"triggerregistrationresult","id":"t","trigger_type":"tt"}`, wantErr: `missing required field "function_id"`},
		{name: "service id", in: `{"type":"registerservice","name":"n"}`, wantErr: `missing required field "id"`},
		{name: "workerregistered worker_id", in: `{"type":"workerregistered"}`, wantErr: `missing required field "worker_id"`},
		{name: "reattach previous_worker_id", in: `{"type":"reattach"}`, wantErr: `missing required field "previous_worker_id"`},
		{name: "rejected owner_worker_id", in: `{"type":"registrationrejected","code":"c","namespace":"n"}`, wantErr: `missing required field "owner_worker_id"`},
		{name: "invalid UTF-8 in a string", in: "{\"type\":\"registerfunction\",\"id\":\"caf\xe9\"}", wantErr: "not valid UTF-8"},
		{name: "wrong field type", in: `{"type":"registerfunction","id":7}`, wantErr: `decode registerfunction: field "id" must be a string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Decode([]byte(tt.in))
			if err == nil {
				t.Fatalf("Decode = %#v, want an error", m)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not contain %q", err, tt.wantErr)
			}
		})
	}
	if _, err := Decode([]byte(`{"type":"nope"}`)); !errors.Is(err, ErrUnknownType) {
		t.Errorf("unknown type error %v is not ErrUnknownType", err)
	}
}

// benchFrames are the frames a worker handles most: an invocation in, its
// result out.
var benchFrames = []Message{
	InvokeFunction{InvocationID: testID, FunctionID: "skills::resources-read",
		Data:     rawJSON(`{"uri":"iii://skills/resend","_caller_worker_id":"` + testID + `"}`),
		Metadata: rawJSON(`{"m":1}`), Traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		Action: &Action{Type: ActionVoid}},
	InvocationResult{InvocationID: testID, FunctionID: "skills::resources-read",
		Result: rawJSON(`{"contents":[{"uri":"iii://skills/resend","mimeType":"text/markdown","text":"# resend\n\nEmail."}]}`)},
	InvocationResult{InvocationID: testID, FunctionID: "f", Error: &ErrorBody{Code: "not_found", Message: "Skill not found: x"}},
}

func BenchmarkEncode(b *testing.B) {
	for b.Loop() {
		for _, m := range benchFrames {
			if _, err := Encode(m); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	var frames [][]byte
	for _, m := range benchFrames {
		f, err := Encode(m)
		if err != nil {
			b.Fatal(err)
		}
		frames = append(frames, f)
	}
	for b.Loop() {
		for _, f := range frames {
			if _, err := Decode(f); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestEncodeAllocatesOnce: a result frame with its ids and trace context
// is built in the one buffer Encode sizes for it.
func TestEncodeAllocatesOnce(t *testing.T) {
	m := InvocationResult{InvocationID: "3f1c2b4e-7d9a-4c1e-9b2f-0a6e8d5c4b3a", FunctionID: "skills::resources-read",
		Result:      json.RawMessage(`"` + strings.Repeat("x", 4096) + `"`),
		Traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", Baggage: "tenant=acme,region=eu-west-1"}
	var msg Message = m
	if n := testing.AllocsPerRun(20, func() { _, _ = Encode(msg) }); n != 1 {
		t.Errorf("Encode of a 4 KiB result frame made %v allocations, want 1", n)
	}
}
