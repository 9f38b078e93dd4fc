package wire

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Encode renders m as one JSON object with its "type" first and optional
// fields omitted when empty. Raw JSON fields are checked with one
// allocation-free scan and copied verbatim, never re-indented or
// re-escaped; strings are escaped without HTML escaping (frames carry
// markdown, not HTML).
func Encode(m Message) ([]byte, error) {
	e := encoder{buf: make([]byte, 0, 128+rawSize(m))}
	e.buf = append(e.buf, `{"type":"`...)
	e.buf = append(e.buf, m.MessageType()...)
	e.buf = append(e.buf, '"')
	switch m := m.(type) {
	case RegisterFunction:
		e.str("id", m.ID, true).str("description", m.Description, false).
			raw("request_format", m.RequestFormat, false).raw("response_format", m.ResponseFormat, false).
			raw("metadata", m.Metadata, false).raw("invocation", m.Invocation, false)
	case UnregisterFunction:
		e.str("id", m.ID, true)
	case InvokeFunction:
		e.str("invocation_id", m.InvocationID, false).str("function_id", m.FunctionID, true).
			raw("data", m.Data, true).raw("metadata", m.Metadata, false).
			str("traceparent", m.Traceparent, false).str("baggage", m.Baggage, false).action(m.Action).
			str("namespace", m.Namespace, false)
	case InvocationResult:
		e.str("invocation_id", m.InvocationID, true).str("function_id", m.FunctionID, true).
			raw("result", m.Result, false).errorBody(m.Error).
			str("traceparent", m.Traceparent, false).str("baggage", m.Baggage, false)
	case RegisterTriggerType:
		e.str("id", m.ID, true).str("description", m.Description, true).
			raw("trigger_request_format", m.TriggerRequestFormat, false).
			raw("call_request_format", m.CallRequestFormat, false).str("namespace", m.Namespace, false)
	case RegisterTrigger:
		e.str("id", m.ID, true).str("trigger_type", m.TriggerType, true).str("function_id", m.FunctionID, true).
			raw("config", m.Config, true).raw("metadata", m.Metadata, false).
			str("namespace", m.Namespace, false).str("trigger_namespace", m.TriggerNamespace, false)
	case UnregisterTrigger:
		e.str("id", m.ID, true).str("trigger_type", m.TriggerType, false)
	case TriggerRegistrationResult:
		e.str("id", m.ID, true).str("trigger_type", m.TriggerType, true).str("function_id", m.FunctionID, true).
			errorBody(m.Error)
	case RegisterService:
		e.str("id", m.ID, true).str("name", m.Name, false).str("description", m.Description, false).
			str("parent_service_id", m.ParentServiceID, false)
	case Ping, Pong:
	case WorkerRegistered:
		e.str("worker_id", m.WorkerID, true).str("reattach_token", m.ReattachToken, false)
	case Reattach:
		e.str("previous_worker_id", m.PreviousWorkerID, true).str("reattach_token", m.ReattachToken, false)
	case RegistrationRejected:
		e.str("code", m.Code, true).str("namespace", m.Namespace, true).str("worker_name", m.WorkerName, false).
			str("function_id", m.FunctionID, false).str("owner_worker_id", m.OwnerWorkerID, true)
	default:
		return nil, fmt.Errorf("encode %s: unsupported message %T", m.MessageType(), m)
	}
	if e.err != nil {
		return nil, fmt.Errorf("encode %s: %w", m.MessageType(), e.err)
	}
	return append(e.buf, '}'), nil
}

// rawSize estimates the encoded size from the raw payloads, so the buffer
// is allocated once.
func rawSize(m Message) int {
	switch m := m.(type) {
	case InvokeFunction:
		return len(m.Data) + len(m.Metadata)
	case InvocationResult:
		return len(m.Result)
	case RegisterFunction:
		return len(m.RequestFormat) + len(m.ResponseFormat) + len(m.Metadata)
	}
	return 0
}

type encoder struct {
	buf []byte
	err error
}

func (e *encoder) key(name string) {
	e.buf = append(e.buf, ',', '"')
	e.buf = append(e.buf, name...)
	e.buf = append(e.buf, '"', ':')
}

// str writes a string field; an empty optional one is omitted.
func (e *encoder) str(name, v string, required bool) *encoder {
	if v == "" && !required {
		return e
	}
	e.key(name)
	e.buf = appendString(e.buf, v)
	return e
}

// raw writes a JSON field verbatim. An empty optional one is omitted; an
// empty required one is written as null.
func (e *encoder) raw(name string, v json.RawMessage, required bool) *encoder {
	if len(v) == 0 {
		if required {
			e.key(name)
			e.buf = append(e.buf, "null"...)
		}
		return e
	}
	if !Valid(v) {
		if e.err == nil {
			e.err = fmt.Errorf("field %q is not valid JSON", name)
		}
		return e
	}
	e.key(name)
	e.buf = append(e.buf, v...)
	return e
}

func (e *encoder) errorBody(b *ErrorBody) *encoder {
	if b == nil {
		return e
	}
	e.key("error")
	e.buf = append(e.buf, `{"code":`...)
	e.buf = appendString(e.buf, b.Code)
	e.buf = append(e.buf, `,"message":`...)
	e.buf = appendString(e.buf, b.Message)
	if b.Stacktrace != "" {
		e.buf = append(e.buf, `,"stacktrace":`...)
		e.buf = appendString(e.buf, b.Stacktrace)
	}
	e.buf = append(e.buf, '}')
	return e
}

func (e *encoder) action(a *Action) *encoder {
	if a == nil {
		return e
	}
	e.key("action")
	e.buf = append(e.buf, `{"type":`...)
	e.buf = appendString(e.buf, a.Type)
	if a.Queue != "" {
		e.buf = append(e.buf, `,"queue":`...)
		e.buf = appendString(e.buf, a.Queue)
	}
	e.buf = append(e.buf, '}')
	return e
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string: quotes, backslashes and control
// characters escaped, invalid UTF-8 replaced by U+FFFD (as encoding/json
// does), U+2028 and U+2029 escaped so the frame is also valid JavaScript.
func appendString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			switch c {
			case '"', '\\':
				buf = append(buf, '\\', c)
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, s[start:i]...)
			buf = append(buf, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			buf = append(buf, s[start:i]...)
			buf = append(buf, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}
