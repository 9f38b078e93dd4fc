package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
)

// Encode renders m as one JSON object with its "type" first. HTML
// characters are not escaped: frames carry markdown, not HTML.
func Encode(m Message) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(128)
	buf.WriteString(`{"type":"`)
	buf.WriteString(m.MessageType())
	buf.WriteByte('"')
	start := buf.Len()
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, fmt.Errorf("encode %s: %w", m.MessageType(), err)
	}
	body := bytes.TrimRight(buf.Bytes()[start:], "\n")
	// body is the struct's own object: "{}" or "{...}".
	out := buf.Bytes()[:start]
	if len(body) > 2 {
		out = append(out, ',')
		out = append(out, body[1:]...)
	} else {
		out = append(out, '}')
	}
	return out, nil
}

// ErrUnknownType reports a frame whose "type" this package does not know.
var ErrUnknownType = errors.New("unknown frame type")

// frame is the union of every field any message carries. Pointers and raw
// messages tell an absent field from an empty one, so that required fields
// can be checked in the same single decoding pass.
type frame struct {
	Type                 string          `json:"type"`
	ID                   *string         `json:"id"`
	FunctionID           *string         `json:"function_id"`
	InvocationID         *string         `json:"invocation_id"`
	Data                 json.RawMessage `json:"data"`
	Metadata             json.RawMessage `json:"metadata"`
	Traceparent          *string         `json:"traceparent"`
	Baggage              *string         `json:"baggage"`
	Action               *Action         `json:"action"`
	Namespace            *string         `json:"namespace"`
	Result               json.RawMessage `json:"result"`
	Error                *errorFrame     `json:"error"`
	Description          *string         `json:"description"`
	RequestFormat        json.RawMessage `json:"request_format"`
	ResponseFormat       json.RawMessage `json:"response_format"`
	Invocation           json.RawMessage `json:"invocation"`
	TriggerType          *string         `json:"trigger_type"`
	Config               json.RawMessage `json:"config"`
	TriggerRequestFormat json.RawMessage `json:"trigger_request_format"`
	CallRequestFormat    json.RawMessage `json:"call_request_format"`
	TriggerNamespace     *string         `json:"trigger_namespace"`
	Name                 *string         `json:"name"`
	ParentServiceID      *string         `json:"parent_service_id"`
	WorkerID             *string         `json:"worker_id"`
	ReattachToken        *string         `json:"reattach_token"`
	PreviousWorkerID     *string         `json:"previous_worker_id"`
	Code                 *string         `json:"code"`
	WorkerName           *string         `json:"worker_name"`
	OwnerWorkerID        *string         `json:"owner_worker_id"`
}

type errorFrame struct {
	Code       *string `json:"code"`
	Message    *string `json:"message"`
	Stacktrace *string `json:"stacktrace"`
}

// Decode parses one frame. It fails, with an error naming the problem, for
// anything the engine would drop: invalid JSON, a non-object, an unknown
// type, a missing required field or a non-UUID invocation_id. Unknown extra
// fields are ignored and an explicit null reads as absent.
func Decode(b []byte) (Message, error) {
	var f frame
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("decode frame: %w", err)
	}
	var miss missing
	var m Message
	switch f.Type {
	case TypeRegisterFunction:
		m = RegisterFunction{ID: miss.str("id", f.ID), Description: opt(f.Description),
			RequestFormat: raw(f.RequestFormat), ResponseFormat: raw(f.ResponseFormat),
			Metadata: raw(f.Metadata), Invocation: raw(f.Invocation)}
	case TypeUnregisterFunction:
		m = UnregisterFunction{ID: miss.str("id", f.ID)}
	case TypeInvokeFunction:
		id, err := invocationID(f.InvocationID, false)
		if err != nil {
			return nil, err
		}
		if f.Data == nil {
			miss.add("data")
		}
		m = InvokeFunction{InvocationID: id, FunctionID: miss.str("function_id", f.FunctionID),
			Data: f.Data, Metadata: raw(f.Metadata), Traceparent: opt(f.Traceparent),
			Baggage: opt(f.Baggage), Action: f.Action, Namespace: opt(f.Namespace)}
	case TypeInvocationResult:
		id, err := invocationID(f.InvocationID, true)
		if err != nil {
			return nil, err
		}
		m = InvocationResult{InvocationID: id, FunctionID: miss.str("function_id", f.FunctionID),
			Result: raw(f.Result), Error: miss.errorBody(f.Error),
			Traceparent: opt(f.Traceparent), Baggage: opt(f.Baggage)}
	case TypeRegisterTriggerType:
		m = RegisterTriggerType{ID: miss.str("id", f.ID), Description: miss.str("description", f.Description),
			TriggerRequestFormat: raw(f.TriggerRequestFormat), CallRequestFormat: raw(f.CallRequestFormat),
			Namespace: opt(f.Namespace)}
	case TypeRegisterTrigger:
		if f.Config == nil {
			miss.add("config")
		}
		m = RegisterTrigger{ID: miss.str("id", f.ID), TriggerType: miss.str("trigger_type", f.TriggerType),
			FunctionID: miss.str("function_id", f.FunctionID), Config: f.Config, Metadata: raw(f.Metadata),
			Namespace: opt(f.Namespace), TriggerNamespace: opt(f.TriggerNamespace)}
	case TypeUnregisterTrigger:
		m = UnregisterTrigger{ID: miss.str("id", f.ID), TriggerType: opt(f.TriggerType)}
	case TypeTriggerRegistrationResult:
		m = TriggerRegistrationResult{ID: miss.str("id", f.ID), TriggerType: miss.str("trigger_type", f.TriggerType),
			FunctionID: miss.str("function_id", f.FunctionID), Error: miss.errorBody(f.Error)}
	case TypeRegisterService:
		m = RegisterService{ID: miss.str("id", f.ID), Name: opt(f.Name), Description: opt(f.Description),
			ParentServiceID: opt(f.ParentServiceID)}
	case TypePing:
		m = Ping{}
	case TypePong:
		m = Pong{}
	case TypeWorkerRegistered:
		m = WorkerRegistered{WorkerID: miss.str("worker_id", f.WorkerID), ReattachToken: opt(f.ReattachToken)}
	case TypeReattach:
		m = Reattach{PreviousWorkerID: miss.str("previous_worker_id", f.PreviousWorkerID),
			ReattachToken: opt(f.ReattachToken)}
	case TypeRegistrationRejected:
		m = RegistrationRejected{Code: miss.str("code", f.Code), Namespace: miss.str("namespace", f.Namespace),
			WorkerName: opt(f.WorkerName), FunctionID: opt(f.FunctionID),
			OwnerWorkerID: miss.str("owner_worker_id", f.OwnerWorkerID)}
	case "":
		return nil, errors.New("decode frame: missing field \"type\"")
	default:
		return nil, fmt.Errorf("decode frame: %w %q", ErrUnknownType, f.Type)
	}
	if len(miss) > 0 {
		return nil, fmt.Errorf("decode %s: missing required field %q", f.Type, miss[0])
	}
	return m, nil
}

// missing collects the names of absent required fields.
type missing []string

func (m *missing) add(name string) { *m = append(*m, name) }

func (m *missing) str(name string, p *string) string {
	if p == nil {
		m.add(name)
		return ""
	}
	return *p
}

func (m *missing) errorBody(e *errorFrame) *ErrorBody {
	if e == nil {
		return nil
	}
	return &ErrorBody{Code: m.str("error.code", e.Code), Message: m.str("error.message", e.Message),
		Stacktrace: opt(e.Stacktrace)}
}

func opt(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// raw reads an explicit JSON null as absent, as the engine does for
// optional fields.
func raw(r json.RawMessage) json.RawMessage {
	if string(r) == "null" {
		return nil
	}
	return r
}

func invocationID(p *string, required bool) (string, error) {
	if p == nil {
		if required {
			return "", errors.New("decode frame: missing required field \"invocation_id\"")
		}
		return "", nil
	}
	if _, err := uuid.Parse(*p); err != nil {
		return "", fmt.Errorf("decode frame: invocation_id %q is not a UUID", *p)
	}
	return *p, nil
}
