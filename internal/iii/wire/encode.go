package wire

import (
	"encoding/json"
	"fmt"
)

// Encode renders m as one JSON object with its "type" first and optional
// fields omitted when empty. Raw JSON fields are checked with one
// allocation-free scan and copied verbatim, never re-indented or
// re-escaped; strings are escaped without HTML escaping (frames carry
// markdown, not HTML).
func Encode(m Message) ([]byte, error) {
	e := encoder{buf: make([]byte, 0, 128+rawSize(m))}
	e.open(m)
	switch m := m.(type) {
	case RegisterFunction:
		e.str(fID, m.ID, true).str(fDescription, m.Description, false).
			raw(fRequestFormat, m.RequestFormat, false).raw(fResponseFormat, m.ResponseFormat, false).
			raw(fMetadata, m.Metadata, false).raw(fInvocation, m.Invocation, false)
	case UnregisterFunction:
		e.str(fID, m.ID, true)
	case InvokeFunction:
		e.str(fInvocationID, m.InvocationID, false).str(fFunctionID, m.FunctionID, true).
			raw(fData, m.Data, true).raw(fMetadata, m.Metadata, false).
			str(fTraceparent, m.Traceparent, false).str(fBaggage, m.Baggage, false).action(m.Action).
			str(fNamespace, m.Namespace, false)
	case InvocationResult:
		e.str(fInvocationID, m.InvocationID, true).str(fFunctionID, m.FunctionID, true).
			raw(fResult, m.Result, false).errorBody(m.Error).
			str(fTraceparent, m.Traceparent, false).str(fBaggage, m.Baggage, false)
	case RegisterTriggerType:
		e.str(fID, m.ID, true).str(fDescription, m.Description, true).
			raw(fTriggerRequestFormat, m.TriggerRequestFormat, false).
			raw(fCallRequestFormat, m.CallRequestFormat, false).str(fNamespace, m.Namespace, false)
	case RegisterTrigger:
		e.str(fID, m.ID, true).str(fTriggerType, m.TriggerType, true).str(fFunctionID, m.FunctionID, true).
			raw(fConfig, m.Config, true).raw(fMetadata, m.Metadata, false).
			str(fNamespace, m.Namespace, false).str(fTriggerNamespace, m.TriggerNamespace, false)
	case UnregisterTrigger:
		e.str(fID, m.ID, true).str(fTriggerType, m.TriggerType, false)
	case TriggerRegistrationResult:
		e.str(fID, m.ID, true).str(fTriggerType, m.TriggerType, true).str(fFunctionID, m.FunctionID, true).
			errorBody(m.Error)
	case RegisterService:
		e.str(fID, m.ID, true).str(fName, m.Name, false).str(fDescription, m.Description, false).
			str(fParentServiceID, m.ParentServiceID, false)
	case Ping, Pong:
	case WorkerRegistered:
		e.str(fWorkerID, m.WorkerID, true).str(fReattachToken, m.ReattachToken, false)
	case Reattach:
		e.str(fPreviousWorkerID, m.PreviousWorkerID, true).str(fReattachToken, m.ReattachToken, false)
	case RegistrationRejected:
		e.str(fCode, m.Code, true).str(fNamespace, m.Namespace, true).str(fWorkerName, m.WorkerName, false).
			str(fFunctionID, m.FunctionID, false).str(fOwnerWorkerID, m.OwnerWorkerID, true)
	default:
		return nil, fmt.Errorf("encode %s: unsupported message %T", m.MessageType(), m)
	}
	if e.err != nil {
		return nil, fmt.Errorf("encode %s: %w", m.MessageType(), e.err)
	}
	return append(e.buf, '}'), nil
}

// rawSize estimates the encoded size beyond the keys (the 128 bytes Encode
// adds) from the raw payloads and the variable strings, so the buffer of a
// frame that carries a body is allocated once: a 4 KiB result whose ids
// and trace context outgrew a fixed 128 bytes was copied into a buffer of
// twice its size.
func rawSize(m Message) int {
	switch m := m.(type) {
	case InvokeFunction:
		return len(m.Data) + len(m.Metadata) + len(m.InvocationID) + len(m.FunctionID) +
			len(m.Traceparent) + len(m.Baggage) + len(m.Namespace)
	case InvocationResult:
		n := len(m.Result) + len(m.InvocationID) + len(m.FunctionID) + len(m.Traceparent) + len(m.Baggage)
		if m.Error != nil {
			n += 32 + len(m.Error.Code) + len(m.Error.Message) + len(m.Error.Stacktrace)
		}
		return n
	case RegisterFunction:
		return len(m.RequestFormat) + len(m.ResponseFormat) + len(m.Metadata) + len(m.ID) + len(m.Description)
	}
	return 0
}

type encoder struct {
	buf []byte
	err error
}

// open starts m's object with its "type" member.
func (e *encoder) open(m Message) {
	e.buf = append(e.buf, '{')
	e.member(fType)
	e.buf = append(e.buf, '"')
	e.buf = append(e.buf, m.MessageType()...) // a lowercase ASCII constant: nothing to escape
	e.buf = append(e.buf, '"')
}

// member writes the key of an object's first member: "name":.
func (e *encoder) member(f field) {
	e.buf = append(e.buf, '"')
	e.buf = append(e.buf, fieldNames[f]...)
	e.buf = append(e.buf, '"', ':')
}

// key writes the key of a later member: ,"name":.
func (e *encoder) key(f field) {
	e.buf = append(e.buf, ',')
	e.member(f)
}

// str writes a string field; an empty optional one is omitted.
func (e *encoder) str(f field, v string, required bool) *encoder {
	if v == "" && !required {
		return e
	}
	e.key(f)
	e.buf = appendString(e.buf, v)
	return e
}

// raw writes a JSON field verbatim. An empty optional one is omitted; an
// empty required one is written as null.
func (e *encoder) raw(f field, v json.RawMessage, required bool) *encoder {
	if len(v) == 0 {
		if required {
			e.key(f)
			e.buf = append(e.buf, "null"...)
		}
		return e
	}
	if !Valid(v) {
		if e.err == nil {
			e.err = fmt.Errorf("field %q is not valid JSON", fieldNames[f])
		}
		return e
	}
	e.key(f)
	e.buf = append(e.buf, v...)
	return e
}

func (e *encoder) errorBody(b *ErrorBody) *encoder {
	if b == nil {
		return e
	}
	e.key(fError)
	e.buf = append(e.buf, '{')
	e.member(fCode)
	e.buf = appendString(e.buf, b.Code)
	e.str(fMessage, b.Message, true).str(fStacktrace, b.Stacktrace, false)
	e.buf = append(e.buf, '}')
	return e
}

func (e *encoder) action(a *Action) *encoder {
	if a == nil {
		return e
	}
	e.key(fAction)
	e.buf = append(e.buf, '{')
	e.member(fType)
	e.buf = appendString(e.buf, a.Type)
	e.str(fQueue, a.Queue, false)
	e.buf = append(e.buf, '}')
	return e
}
