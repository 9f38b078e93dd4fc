package wire

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
)

// ErrUnknownType reports a frame whose "type" this package does not know.
var ErrUnknownType = errors.New("unknown frame type")

// object holds the raw extent of every known key of one JSON object; nil
// means absent. Keys are matched exactly (case-sensitive, as serde does).
type object [numFields][]byte

// parseObject reads one JSON object in a single validating pass. Unknown
// keys are skipped; a known key given twice is an error, as in serde.
func parseObject(b []byte, o *object) error {
	err := EachMember(b, func(key string, v []byte) error {
		if f, ok := fieldByName[key]; ok {
			if o[f] != nil {
				return fmt.Errorf("duplicate field %q", key)
			}
			o[f] = v
		}
		return nil
	})
	if errors.Is(err, errNotObject) {
		return errors.New("a frame must be a JSON object")
	}
	return err
}

func trailing(b []byte, i int) error {
	if j := skipSpace(b, i); j != len(b) {
		return fmt.Errorf("%w: data after the object at offset %d", errSyntax, j)
	}
	return nil
}

// stringValue decodes a validated JSON string literal. Plain ASCII is
// sliced; anything else goes through encoding/json for escapes and its
// replacement of invalid UTF-8.
func stringValue(lit []byte, plain bool) (string, error) {
	if plain {
		return string(lit[1 : len(lit)-1]), nil
	}
	var s string
	err := json.Unmarshal(lit, &s)
	return s, err
}

// reader interprets an object's fields for one frame type, keeping the
// first problem.
type reader struct {
	o      *object
	prefix string // "error." inside the error object, for messages
	err    error
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(format, args...)
	}
}

func isNull(v []byte) bool { return string(v) == "null" }

// str reads a string field; absent and null read as "" and, when the field
// is required, as an error.
func (r *reader) str(f field, required bool) string {
	v := r.o[f]
	if v == nil || isNull(v) {
		if required {
			r.fail("missing required field %q", r.prefix+fieldNames[f])
		}
		return ""
	}
	if v[0] != '"' {
		r.fail("field %q must be a string", r.prefix+fieldNames[f])
		return ""
	}
	_, plain, _ := skipString(v, 0) // already validated
	s, err := stringValue(v, plain)
	if err != nil {
		r.fail("field %q: %v", fieldNames[f], err)
	}
	return s
}

// raw reads an optional JSON field; an explicit null reads as absent, as
// the engine reads optional fields.
func (r *reader) raw(f field) json.RawMessage {
	v := r.o[f]
	if v == nil || isNull(v) {
		return nil
	}
	return json.RawMessage(v)
}

// rawRequired reads a required JSON field; null is a value here.
func (r *reader) rawRequired(f field) json.RawMessage {
	v := r.o[f]
	if v == nil {
		r.fail("missing required field %q", fieldNames[f])
	}
	return json.RawMessage(v)
}

// uuid reads an invocation id, which must parse as a UUID when present.
func (r *reader) uuid(f field, required bool) string {
	v := r.o[f]
	s := r.str(f, required)
	if v == nil || isNull(v) || v[0] != '"' {
		return s
	}
	if _, err := uuid.Parse(s); err != nil {
		r.fail("field %q must be a UUID, got %q", r.prefix+fieldNames[f], s)
	}
	return s
}

// nested parses an optional object field.
func (r *reader) nested(f field) *reader {
	v := r.o[f]
	if v == nil || isNull(v) {
		return nil
	}
	var o object
	if err := parseObject(v, &o); err != nil {
		r.fail("field %q must be an object: %v", fieldNames[f], err)
		return nil
	}
	return &reader{o: &o, prefix: fieldNames[f] + "."}
}

func (r *reader) errorBody() *ErrorBody {
	n := r.nested(fError)
	if n == nil {
		return nil
	}
	e := &ErrorBody{Code: n.str(fCode, true), Message: n.str(fMessage, true), Stacktrace: n.str(fStacktrace, false)}
	if n.err != nil {
		r.fail("%v", n.err)
	}
	return e
}

func (r *reader) action() *Action {
	n := r.nested(fAction)
	if n == nil {
		return nil
	}
	a := &Action{Type: n.str(fType, true), Queue: n.str(fQueue, false)}
	if n.err != nil {
		r.fail("%v", n.err)
	}
	return a
}

// Decode parses one frame. It fails, with an error naming the problem, for
// anything the engine would drop: invalid JSON, a non-object, an unknown
// type, a missing or mistyped field of that type, a duplicate field or a
// non-UUID invocation_id. Unknown keys are ignored, keys match
// case-sensitively, and an explicit null reads as absent. Raw JSON fields
// of the result alias b.
func Decode(b []byte) (Message, error) {
	var o object
	if err := parseObject(b, &o); err != nil {
		return nil, fmt.Errorf("decode frame: %w", err)
	}
	r := &reader{o: &o}
	typ := r.str(fType, true)
	if r.err != nil {
		return nil, fmt.Errorf("decode frame: %w", r.err)
	}
	m, err := r.message(typ)
	if err != nil {
		return nil, err
	}
	if r.err != nil {
		return nil, fmt.Errorf("decode %s: %w", typ, r.err)
	}
	return m, nil
}

func (r *reader) message(typ string) (Message, error) {
	switch typ {
	case TypeRegisterFunction:
		return RegisterFunction{ID: r.str(fID, true), Description: r.str(fDescription, false),
			RequestFormat: r.raw(fRequestFormat), ResponseFormat: r.raw(fResponseFormat),
			Metadata: r.raw(fMetadata), Invocation: r.raw(fInvocation)}, nil
	case TypeUnregisterFunction:
		return UnregisterFunction{ID: r.str(fID, true)}, nil
	case TypeInvokeFunction:
		return InvokeFunction{InvocationID: r.uuid(fInvocationID, false), FunctionID: r.str(fFunctionID, true),
			Data: r.rawRequired(fData), Metadata: r.raw(fMetadata), Traceparent: r.str(fTraceparent, false),
			Baggage: r.str(fBaggage, false), Action: r.action(), Namespace: r.str(fNamespace, false)}, nil
	case TypeInvocationResult:
		return InvocationResult{InvocationID: r.uuid(fInvocationID, true), FunctionID: r.str(fFunctionID, true),
			Result: r.raw(fResult), Error: r.errorBody(),
			Traceparent: r.str(fTraceparent, false), Baggage: r.str(fBaggage, false)}, nil
	case TypeRegisterTriggerType:
		return RegisterTriggerType{ID: r.str(fID, true), Description: r.str(fDescription, true),
			TriggerRequestFormat: r.raw(fTriggerRequestFormat), CallRequestFormat: r.raw(fCallRequestFormat),
			Namespace: r.str(fNamespace, false)}, nil
	case TypeRegisterTrigger:
		return RegisterTrigger{ID: r.str(fID, true), TriggerType: r.str(fTriggerType, true),
			FunctionID: r.str(fFunctionID, true), Config: r.rawRequired(fConfig), Metadata: r.raw(fMetadata),
			Namespace: r.str(fNamespace, false), TriggerNamespace: r.str(fTriggerNamespace, false)}, nil
	case TypeUnregisterTrigger:
		return UnregisterTrigger{ID: r.str(fID, true), TriggerType: r.str(fTriggerType, false)}, nil
	case TypeTriggerRegistrationResult:
		return TriggerRegistrationResult{ID: r.str(fID, true), TriggerType: r.str(fTriggerType, true),
			FunctionID: r.str(fFunctionID, true), Error: r.errorBody()}, nil
	case TypeRegisterService:
		return RegisterService{ID: r.str(fID, true), Name: r.str(fName, false),
			Description: r.str(fDescription, false), ParentServiceID: r.str(fParentServiceID, false)}, nil
	case TypePing:
		return Ping{}, nil
	case TypePong:
		return Pong{}, nil
	case TypeWorkerRegistered:
		return WorkerRegistered{WorkerID: r.str(fWorkerID, true), ReattachToken: r.str(fReattachToken, false)}, nil
	case TypeReattach:
		return Reattach{PreviousWorkerID: r.str(fPreviousWorkerID, true), ReattachToken: r.str(fReattachToken, false)}, nil
	case TypeRegistrationRejected:
		return RegistrationRejected{Code: r.str(fCode, true), Namespace: r.str(fNamespace, true),
			WorkerName: r.str(fWorkerName, false), FunctionID: r.str(fFunctionID, false),
			OwnerWorkerID: r.str(fOwnerWorkerID, true)}, nil
	default:
		return nil, fmt.Errorf("decode frame: %w %q", ErrUnknownType, typ)
	}
}
