package iii

import (
	"errors"
	"fmt"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// Error is a failure with a wire code: an engine or remote handler error
// returned by a call, or an error a handler returns to keep its code.
type Error struct {
	Code       string
	Message    string
	Stacktrace string
}

// Error renders "<code>: <message>", as the official SDKs do.
func (e *Error) Error() string { return e.Code + ": " + e.Message }

// ErrorCode returns the wire code.
func (e *Error) ErrorCode() string { return e.Code }

// Codes the client itself produces.
const (
	CodeInvocationFailed = "invocation_failed"
	CodeFunctionNotFound = "function_not_found"
	CodeInvalidArgument  = "invalid_argument"
	// CodeUnavailable answers invocations that arrive during Shutdown.
	CodeUnavailable = "unavailable"
	// CodeTriggerRegistrationFailed answers a binding OnRegister refused.
	CodeTriggerRegistrationFailed = "trigger_registration_failed"
	// CodeTriggerTypeNotFound answers a binding of a type not provided here.
	CodeTriggerTypeNotFound = "trigger_type_not_found"
)

// Client-side failures of outbound calls. They never travel on the wire.
// Each also says, through its CallFailure method, how a function's error
// words it after the call's name ("state::get: invocation timed out"), so
// that what words errors (internal/contract) need not import this client.
var (
	// ErrNotConnected is returned by calls made while no engine connection
	// is up: they fail fast instead of waiting for a reconnect.
	ErrNotConnected error = &callFailure{"iii: not connected to the engine", "not connected to the engine (the worker reconnects on its own; retry shortly)"}
	// ErrTimeout is returned when a call's result does not arrive in time.
	ErrTimeout error = &callFailure{"iii: invocation timed out", "invocation timed out"}
	// ErrClosed is returned by calls on, or pending during, Close.
	ErrClosed error = &callFailure{"iii: client closed", "the worker is shutting down"}
)

// callFailure is one of the client's own failures: text is its error,
// plain what it means to the caller of a function that made the call.
type callFailure struct{ text, plain string }

func (e *callFailure) Error() string { return e.text }

// CallFailure is the failure in the words a function's error uses after
// the name of the call that failed.
func (e *callFailure) CallFailure() string { return e.plain }

// coder is implemented by domain errors that carry their own wire code.
type coder interface{ ErrorCode() string }

// errorBody maps a handler error to the wire: the outermost error in the
// chain that has an ErrorCode gives the code, so a domain error wrapping a
// failed call reports its own code (say unavailable), not the code of the
// call it wraps. When that outermost coded error is an *Error, its bare
// message is sent (wrapping text and all); otherwise err.Error(). Anything
// else is invocation_failed.
func errorBody(err error) *wire.ErrorBody {
	var c coder
	if errors.As(err, &c) && c.ErrorCode() != "" {
		if ie, ok := c.(*Error); ok {
			return &wire.ErrorBody{Code: ie.Code, Message: ie.Message, Stacktrace: ie.Stacktrace}
		}
		return &wire.ErrorBody{Code: c.ErrorCode(), Message: err.Error()}
	}
	return &wire.ErrorBody{Code: CodeInvocationFailed, Message: err.Error()}
}

// fromBody turns a wire error into an *Error.
func fromBody(b *wire.ErrorBody) *Error {
	return &Error{Code: b.Code, Message: b.Message, Stacktrace: b.Stacktrace}
}

// panicError reports a recovered handler panic.
func panicError(functionID string, v any) *Error {
	return &Error{Code: CodeInvocationFailed, Message: fmt.Sprintf("handler %s panicked: %v", functionID, v)}
}

// RegistrationRejectedError is the engine's (0.23) refusal of this worker,
// reported by WaitReady and Err when it is fatal.
type RegistrationRejectedError struct {
	Code          string // e.g. WORKER_NAMESPACE_CONFLICT
	Namespace     string
	WorkerName    string
	FunctionID    string
	OwnerWorkerID string
}

// Error names the code and what conflicted.
func (e *RegistrationRejectedError) Error() string {
	switch {
	case e.WorkerName != "":
		return fmt.Sprintf("iii: registration rejected: %s: worker name %q in namespace %q is held by worker %q",
			e.Code, e.WorkerName, e.Namespace, e.OwnerWorkerID)
	case e.FunctionID != "":
		return fmt.Sprintf("iii: registration rejected: %s: function %q in namespace %q is owned by worker %q",
			e.Code, e.FunctionID, e.Namespace, e.OwnerWorkerID)
	}
	return fmt.Sprintf("iii: registration rejected: %s in namespace %q", e.Code, e.Namespace)
}
