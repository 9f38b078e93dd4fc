package contract

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/iii-hq/skills-go/internal/iii"
)

func TestErrorCodesAndMessages(t *testing.T) {
	cause := errors.New("boom")
	tests := []struct {
		name      string
		err       *Error
		code, msg string
		wrapped   error
	}{
		{"invalid", Invalid(cause), CodeInvalidArgument, "boom", cause},
		{"invalidf", Invalidf("bad %s", "x"), CodeInvalidArgument, "bad x", nil},
		{"not found", NotFoundf("Skill not found: %s", "a"), CodeNotFound, "Skill not found: a", nil},
		{"forbidden", Forbiddenf("no"), CodeForbidden, "no", nil},
		{"unavailable names the call", Unavailable("state::get", cause), CodeUnavailable, "state::get: boom", cause},
		{"deadline", Unavailable("trigger a::b", context.DeadlineExceeded), CodeUnavailable, "trigger a::b: invocation timed out", context.DeadlineExceeded},
		{"client timeout", Unavailable("trigger a::b", iii.ErrTimeout), CodeUnavailable, "trigger a::b: invocation timed out", iii.ErrTimeout},
		{"client timeout as the client wraps it", Unavailable("trigger a::b", fmt.Errorf("invoke a::b: %w after 10s", iii.ErrTimeout)), CodeUnavailable, "trigger a::b: invocation timed out", iii.ErrTimeout},
		{"not connected", Unavailable("state::get", fmt.Errorf("invoke state::get: %w", iii.ErrNotConnected)), CodeUnavailable, "state::get: not connected to the engine (the worker reconnects on its own; retry shortly)", iii.ErrNotConnected},
		{"closing", Unavailable("state::get", iii.ErrClosed), CodeUnavailable, "state::get: the worker is shutting down", iii.ErrClosed},
		{"cancelled", Unavailable("state::list", context.Canceled), CodeUnavailable, "state::list: call cancelled", context.Canceled},
		{"remote error keeps its code in the text", Unavailable("state::set", &iii.Error{Code: "SET_ERROR", Message: "full"}), CodeUnavailable, "state::set: SET_ERROR: full", nil},
		{"fs message verbatim", UnavailableMsg(cause), CodeUnavailable, "boom", cause},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.err.Error() != tt.msg || tt.err.ErrorCode() != tt.code {
				t.Errorf("got %q (%s), want %q (%s)", tt.err.Error(), tt.err.ErrorCode(), tt.msg, tt.code)
			}
			if tt.wrapped != nil && !errors.Is(tt.err, tt.wrapped) {
				t.Errorf("%v does not wrap %v", tt.err, tt.wrapped)
			}
		})
	}
}

// The iii client keeps a handler error's code when errors.As finds an
// ErrorCode method, even through wrapping.
func TestErrorCodeSurvivesWrapping(t *testing.T) {
	err := fmt.Errorf("context: %w", NotFoundf("Prompt not found: x"))
	var coded interface{ ErrorCode() string }
	if !errors.As(err, &coded) || coded.ErrorCode() != CodeNotFound {
		t.Errorf("code lost through wrapping: %v", err)
	}
}
