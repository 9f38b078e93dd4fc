package iii

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// domainError is a handler's own coded error that wraps a failed call.
type domainError struct {
	code, msg string
	cause     error
}

func (e *domainError) Error() string     { return e.msg }
func (e *domainError) ErrorCode() string { return e.code }
func (e *domainError) Unwrap() error     { return e.cause }

func TestErrorBody(t *testing.T) {
	upstream := &Error{Code: "function_not_found", Message: "Function a::b not found"}
	tests := []struct {
		name string
		err  error
		want wire.ErrorBody
	}{
		{"plain", errors.New("boom"), wire.ErrorBody{Code: "invocation_failed", Message: "boom"}},
		{"iii error as is", &Error{Code: "not_found", Message: "Skill not found: x", Stacktrace: "st"},
			wire.ErrorBody{Code: "not_found", Message: "Skill not found: x", Stacktrace: "st"}},
		{"domain error wrapping a failed call keeps its own code", &domainError{"unavailable", "trigger a::b: function_not_found: Function a::b not found", upstream},
			wire.ErrorBody{Code: "unavailable", Message: "trigger a::b: function_not_found: Function a::b not found"}},
		{"plain wrap of an iii error sends it as is", fmt.Errorf("load: %w", upstream),
			wire.ErrorBody{Code: "function_not_found", Message: "Function a::b not found"}},
		{"empty code falls back", &domainError{"", "odd", nil}, wire.ErrorBody{Code: "invocation_failed", Message: "odd"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, *errorBody(tt.err)); diff != "" {
				t.Errorf("errorBody (-want +got):\n%s", diff)
			}
		})
	}
}
