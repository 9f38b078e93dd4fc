package iii

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/invopop/jsonschema"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// Request is one invocation of a function this worker serves.
type Request struct {
	FunctionID   string
	InvocationID string          // empty when the engine expects no result
	Data         json.RawMessage // the payload, as sent (may hold _caller_worker_id)
	Metadata     json.RawMessage // per-invocation sidecar (trigger binding metadata)
	Traceparent  string
	Baggage      string
}

// Handler serves a function. A json.RawMessage result is sent verbatim; a
// nil result sends no result field; a JSONAppender writes itself; an
// Encoded is copied in as it is;
// anything else is JSON-encoded. Errors keep their ErrorCode (see Error)
// or become invocation_failed.
type Handler func(ctx context.Context, req Request) (any, error)

// JSONAppender is a result that writes itself as JSON straight into the
// invocationresult frame: no reflection, no intermediate copy, no
// validation scan (docs/decisions.md D52). For a hot result whose shape is
// fixed (skills::resources-read). AppendJSON must append exactly the
// bytes encoding/json (without HTML escaping) would write for the value,
// strings escaped with wire.AppendJSONString; a differential test against
// encoding/json is what holds it to that.
type JSONAppender interface {
	AppendJSON(dst []byte) []byte
}

// Function is a function registration: what the engine lists, plus the
// handler that serves it.
type Function struct {
	ID             string
	Description    string
	RequestFormat  json.RawMessage // JSON Schema of the input, optional
	ResponseFormat json.RawMessage // JSON Schema of the output, optional
	Metadata       json.RawMessage // optional
	Handler        Handler
}

// NewFunction builds a Function whose payload is decoded into In and whose
// request and response schemas are reflected from In and Out. Decoding is
// lenient: unknown keys are ignored and a null payload decodes as the zero
// In. A payload of the wrong shape fails with invalid_argument naming the
// problem. It panics if a schema cannot be generated, like
// http.ServeMux.Handle does for bad patterns: that is a programming error.
func NewFunction[In, Out any](id, description string, fn func(ctx context.Context, in In) (Out, error)) Function {
	h := func(ctx context.Context, req Request) (any, error) {
		var in In
		if len(req.Data) > 0 && !decodeFast(&in, req.Data) {
			if err := json.Unmarshal(req.Data, &in); err != nil {
				return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("invalid payload for %s: %s", id, jsonProblem(err))}
			}
		}
		return fn(ctx, in)
	}
	return Function{
		ID:             id,
		Description:    description,
		RequestFormat:  SchemaOf[In](),
		ResponseFormat: SchemaOf[Out](),
		Handler:        h,
	}
}

// FastDecoder is an input type that decodes the usual shape of its payload
// without reflection, for a function on the hot path
// (skills::resources-read). DecodeFast reports false for anything it does
// not handle, leaving the input untouched, and NewFunction then decodes
// with encoding/json as always, errors included; what it accepts it must
// decode exactly as encoding/json would, which a differential fuzz test
// of the implementation holds it to.
type FastDecoder interface {
	DecodeFast(data []byte) bool
}

// decodeFast decodes data into in when In is a FastDecoder that takes it.
func decodeFast[In any](in *In, data []byte) bool {
	fd, ok := any(in).(FastDecoder)
	return ok && fd.DecodeFast(data)
}

// Encoded is a result encoded and checked once, by EncodeResult. A
// handler that keeps an answer encoded returns it, and the answer is
// copied into each frame without the scan a json.RawMessage gets on every
// call (docs/decisions.md D53).
type Encoded []byte

// MarshalJSON is the encoded bytes, so an Encoded result encoded again
// in-process (a test, a caller in the same process) is the same JSON.
func (e Encoded) MarshalJSON() ([]byte, error) {
	if len(e) == 0 {
		return []byte("null"), nil
	}
	return e, nil
}

// EncodeResult encodes v exactly as a handler's result is sent, and checks
// it once (valid JSON in valid UTF-8, what a frame is checked for), so a
// handler may keep the answer and return it with nothing on the wire
// changed.
func EncodeResult(v any) (Encoded, error) {
	raw, err := encodeJSON(v)
	if err != nil {
		return nil, err
	}
	if _, checked := v.(json.RawMessage); !checked && len(raw) > 0 && !wire.Valid(raw) {
		return nil, errors.New("the result does not encode as valid JSON in valid UTF-8")
	}
	return Encoded(raw), nil
}

// SchemaOf reflects a JSON Schema for T, inlined (no $defs references) so
// MCP clients can use it directly as a tool input schema.
func SchemaOf[T any]() json.RawMessage {
	r := jsonschema.Reflector{DoNotReference: true, ExpandedStruct: true, AllowAdditionalProperties: true, Anonymous: true}
	var zero T
	b, err := encodeJSON(r.Reflect(&zero))
	if err != nil {
		panic(fmt.Sprintf("iii: schema for %T: %v", zero, err))
	}
	return b
}

// jsonProblem phrases a decoding error for a caller: which field had which
// type and what was expected.
// maxQuotedBytes bounds how much of a caller's value an error quotes.
const maxQuotedBytes = 200

func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		// Value is a JSON type name, or "number <literal>" for a number
		// that does not fit: a caller's literal is quoted at most 200
		// bytes (docs/decisions.md D27).
		value := te.Value
		if len(value) > maxQuotedBytes {
			value = fmt.Sprintf("%s… (%d bytes)", value[:maxQuotedBytes], len(value))
		}
		if te.Field != "" {
			return fmt.Sprintf("field %q must be %s, got %s", te.Field, jsonType(te.Type), value)
		}
		return fmt.Sprintf("payload must be %s, got %s", jsonType(te.Type), value)
	}
	return err.Error()
}

// jsonType names what a Go type accepts in JSON terms, for callers who
// never see Go.
func jsonType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return jsonType(t.Elem()) + " or null"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.String {
			return "an array of strings"
		}
		return "an array"
	case reflect.Struct, reflect.Map:
		return "a JSON object"
	default:
		return "a JSON value"
	}
}
