package wire

// This file keeps the first decoder, built on encoding/json, as a reference
// for differential fuzzing of the single-pass decoder.

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
)

// frame is the union of every field any message carries. Pointers and raw
// messages tell an absent field from an empty one, so that required fields
// can be checked in the same single decoding pass.
type refFrame struct {
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
	Error                *refErrorFrame  `json:"error"`
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

type refErrorFrame struct {
	Code       *string `json:"code"`
	Message    *string `json:"message"`
	Stacktrace *string `json:"stacktrace"`
}

// Decode parses one frame. It fails, with an error naming the problem, for
// anything the engine would drop: invalid JSON, a non-object, an unknown
// type, a missing required field or a non-UUID invocation_id. Unknown extra
// fields are ignored and an explicit null reads as absent.
func decodeReference(b []byte) (Message, error) {
	var f refFrame
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("decode frame: %w", err)
	}
	var miss refMissing
	var m Message
	switch f.Type {
	case TypeRegisterFunction:
		m = RegisterFunction{ID: miss.str("id", f.ID), Description: refOpt(f.Description),
			RequestFormat: refRaw(f.RequestFormat), ResponseFormat: refRaw(f.ResponseFormat),
			Metadata: refRaw(f.Metadata), Invocation: refRaw(f.Invocation)}
	case TypeUnregisterFunction:
		m = UnregisterFunction{ID: miss.str("id", f.ID)}
	case TypeInvokeFunction:
		id, err := refInvocationID(f.InvocationID, false)
		if err != nil {
			return nil, err
		}
		if f.Data == nil {
			miss.add("data")
		}
		m = InvokeFunction{InvocationID: id, FunctionID: miss.str("function_id", f.FunctionID),
			Data: f.Data, Metadata: refRaw(f.Metadata), Traceparent: refOpt(f.Traceparent),
			Baggage: refOpt(f.Baggage), Action: f.Action, Namespace: refOpt(f.Namespace)}
	case TypeInvocationResult:
		id, err := refInvocationID(f.InvocationID, true)
		if err != nil {
			return nil, err
		}
		m = InvocationResult{InvocationID: id, FunctionID: miss.str("function_id", f.FunctionID),
			Result: refRaw(f.Result), Error: miss.errorBody(f.Error),
			Traceparent: refOpt(f.Traceparent), Baggage: refOpt(f.Baggage)}
	case TypeRegisterTriggerType:
		m = RegisterTriggerType{ID: miss.str("id", f.ID), Description: miss.str("description", f.Description),
			TriggerRequestFormat: refRaw(f.TriggerRequestFormat), CallRequestFormat: refRaw(f.CallRequestFormat),
			Namespace: refOpt(f.Namespace)}
	case TypeRegisterTrigger:
		if f.Config == nil {
			miss.add("config")
		}
		m = RegisterTrigger{ID: miss.str("id", f.ID), TriggerType: miss.str("trigger_type", f.TriggerType),
			FunctionID: miss.str("function_id", f.FunctionID), Config: f.Config, Metadata: refRaw(f.Metadata),
			Namespace: refOpt(f.Namespace), TriggerNamespace: refOpt(f.TriggerNamespace)}
	case TypeUnregisterTrigger:
		m = UnregisterTrigger{ID: miss.str("id", f.ID), TriggerType: refOpt(f.TriggerType)}
	case TypeTriggerRegistrationResult:
		m = TriggerRegistrationResult{ID: miss.str("id", f.ID), TriggerType: miss.str("trigger_type", f.TriggerType),
			FunctionID: miss.str("function_id", f.FunctionID), Error: miss.errorBody(f.Error)}
	case TypeRegisterService:
		m = RegisterService{ID: miss.str("id", f.ID), Name: refOpt(f.Name), Description: refOpt(f.Description),
			ParentServiceID: refOpt(f.ParentServiceID)}
	case TypePing:
		m = Ping{}
	case TypePong:
		m = Pong{}
	case TypeWorkerRegistered:
		m = WorkerRegistered{WorkerID: miss.str("worker_id", f.WorkerID), ReattachToken: refOpt(f.ReattachToken)}
	case TypeReattach:
		m = Reattach{PreviousWorkerID: miss.str("previous_worker_id", f.PreviousWorkerID),
			ReattachToken: refOpt(f.ReattachToken)}
	case TypeRegistrationRejected:
		m = RegistrationRejected{Code: miss.str("code", f.Code), Namespace: miss.str("namespace", f.Namespace),
			WorkerName: refOpt(f.WorkerName), FunctionID: refOpt(f.FunctionID),
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
type refMissing []string

func (m *refMissing) add(name string) { *m = append(*m, name) }

func (m *refMissing) str(name string, p *string) string {
	if p == nil {
		m.add(name)
		return ""
	}
	return *p
}

func (m *refMissing) errorBody(e *refErrorFrame) *ErrorBody {
	if e == nil {
		return nil
	}
	return &ErrorBody{Code: m.str("error.code", e.Code), Message: m.str("error.message", e.Message),
		Stacktrace: refOpt(e.Stacktrace)}
}

func refOpt(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// raw reads an explicit JSON null as absent, as the engine does for
// optional fields.
func refRaw(r json.RawMessage) json.RawMessage {
	if string(r) == "null" {
		return nil
	}
	return r
}

func refInvocationID(p *string, required bool) (string, error) {
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
