package wire

// EncodeResult renders an invocationresult whose result appendResult
// writes straight into the frame, as Encode would render m with that
// result in m.Result (m.Result and m.Error are ignored): the result is
// not built apart, scanned and copied, as a json.RawMessage is. It is for
// the worker's own encoders (iii.JSONAppender), which append exactly one
// valid JSON value and are held to encoding/json's bytes by their tests
// (docs/decisions.md D52), and for results already known to be valid
// JSON. sizeHint is the result's expected size, 0 if unknown. resultLen
// is how many bytes the result took.
func EncodeResult(m InvocationResult, sizeHint int, appendResult func(dst []byte) []byte) (frame []byte, resultLen int) {
	return AppendResult(make([]byte, 0, 256+sizeHint), m, appendResult)
}

// AppendResult is EncodeResult writing the frame at the end of dst, which
// it grows as append does: a caller that reuses frames passes one back.
func AppendResult(dst []byte, m InvocationResult, appendResult func(dst []byte) []byte) (frame []byte, resultLen int) {
	e := encoder{buf: dst}
	e.open(m)
	e.str(fInvocationID, m.InvocationID, true).str(fFunctionID, m.FunctionID, true)
	e.key(fResult)
	start := len(e.buf)
	e.buf = appendResult(e.buf)
	resultLen = len(e.buf) - start
	e.str(fTraceparent, m.Traceparent, false).str(fBaggage, m.Baggage, false)
	return append(e.buf, '}'), resultLen
}
