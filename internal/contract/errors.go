package contract

import (
	"context"
	"errors"
	"fmt"
)

// Error codes a handler failure carries on the wire (docs/decisions.md
// D8). They are stable: callers may branch on them.
const (
	// CodeInvalidArgument: the payload failed validation; the message says
	// what was wrong and what is allowed.
	CodeInvalidArgument = "invalid_argument"
	// CodeNotFound: no skill or prompt with that id or name; the message
	// keeps the words "not found" because the mcp worker matches on them.
	CodeNotFound = "not_found"
	// CodeForbidden: the recursion guard refused an internal namespace.
	CodeForbidden = "forbidden"
	// CodeUnavailable: state, a filesystem entry or an upstream function
	// failed or timed out; the message names what failed.
	CodeUnavailable = "unavailable"
)

// Error is a handler failure with a stable code and the reference worker's
// text as its message, without any "handler error:" prefix. The iii client
// sends Code as the wire code because Error has an ErrorCode method.
type Error struct {
	Code    string
	Message string
	cause   error
}

// Error returns the message alone, so that it reaches the caller verbatim.
func (e *Error) Error() string { return e.Message }

// ErrorCode returns the wire code.
func (e *Error) ErrorCode() string { return e.Code }

// Unwrap returns the underlying failure, if any.
func (e *Error) Unwrap() error { return e.cause }

// Every domain failure is built by one of the functions below, so the
// mapping from situation to code lives here and nowhere else.

// Invalid reports a validation failure; err's text is the message.
func Invalid(err error) *Error {
	return &Error{Code: CodeInvalidArgument, Message: err.Error(), cause: err}
}

// Invalidf reports a validation failure with a formatted message.
func Invalidf(format string, args ...any) *Error {
	return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf(format, args...)}
}

// NotFoundf reports an unknown skill or prompt.
func NotFoundf(format string, args ...any) *Error {
	return &Error{Code: CodeNotFound, Message: fmt.Sprintf(format, args...)}
}

// Forbiddenf reports a function id refused by the recursion guard, or a
// path outside what the config allows.
func Forbiddenf(format string, args ...any) *Error {
	return &Error{Code: CodeForbidden, Message: fmt.Sprintf(format, args...)}
}

// Unavailablef reports a failure, worded in full by the caller, of
// something the worker depends on (a section over the response budget).
func Unavailablef(format string, args ...any) *Error {
	return &Error{Code: CodeUnavailable, Message: fmt.Sprintf(format, args...)}
}

// Unavailable reports a failed outbound call; the message is
// "<call>: <cause>", e.g. "state::get: …" or "trigger foo::bar: …".
func Unavailable(call string, err error) *Error {
	return &Error{Code: CodeUnavailable, Message: call + ": " + describe(err), cause: err}
}

// UnavailableMsg reports a failure whose text already says what failed,
// such as an fs read error ("read <path>: …") or a handler's bad output.
func UnavailableMsg(err error) *Error {
	return &Error{Code: CodeUnavailable, Message: err.Error(), cause: err}
}

// describe renders a call failure for "<call>: <cause>". The client's own
// failures are worded plainly, as their CallFailure method words them
// (its errors repeat the function id, which the call prefix already
// names); a remote failure keeps its wire code, e.g. "SET_ERROR: Failed to
// set value: …".
func describe(err error) string {
	if f, ok := errors.AsType[interface {
		error
		CallFailure() string
	}](err); ok {
		return f.CallFailure()
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "invocation timed out"
	case errors.Is(err, context.Canceled):
		return "call cancelled"
	default:
		return err.Error()
	}
}

// CodeOf is the wire code err carries (an ErrorCode method anywhere in
// its chain, as the iii client reads it), or "" when none.
func CodeOf(err error) string {
	if e, ok := errors.AsType[interface {
		error
		ErrorCode() string
	}](err); ok {
		return e.ErrorCode()
	}
	return ""
}
