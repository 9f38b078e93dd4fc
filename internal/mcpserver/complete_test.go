package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// completion/complete offers the skill ids for the iii://{+path}
// template, and says what there is when asked about a prompt, an
// argument or a template that is not there.
func TestCompletion(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	for _, id := range []string{"pg/backup", "pg/restore", "pdf"} {
		r.call(t, "skills::register", map[string]string{"id": id, "skill": "# " + id})
	}
	r.call(t, "prompts::register", map[string]any{"name": "triage", "description": "Triage an issue", "function_id": "test::prompt",
		"arguments": []map[string]any{{"name": "topic", "required": true}, {"name": "team"}}})
	if init := r.session.InitializeResult(); init.Capabilities.Completions == nil {
		t.Error("the completions capability is not declared")
	}
	path := func(value string) *mcp.CompleteParams {
		return &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: "iii://{+path}"}, Argument: mcp.CompleteParamsArgument{Name: "path", Value: value}}
	}
	for _, tc := range []struct {
		value string
		want  []string
	}{
		{"pg/", []string{"pg/backup", "pg/restore"}},
		{"p", []string{"pdf", "pg/backup", "pg/restore"}},
		{"", []string{"pdf", "pg/backup", "pg/restore", "skills"}},
		{"zzz", []string{}},
	} {
		res, err := r.session.Complete(ctx, path(tc.value))
		if err != nil || !slices.Equal(res.Completion.Values, tc.want) || res.Completion.Total != len(tc.want) || res.Completion.HasMore {
			t.Errorf("complete path %q = %+v, %v; want %v", tc.value, res, err, tc.want)
		}
	}
	prompt := &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "triage"}, Argument: mcp.CompleteParamsArgument{Name: "topic", Value: "bil"}}
	if res, err := r.session.Complete(ctx, prompt); err != nil || res.Completion.Values == nil || len(res.Completion.Values) != 0 {
		t.Errorf("complete a prompt argument with no values declared = %+v, %v; want an empty list", res, err)
	}
	r.call(t, "prompts::register", map[string]any{"name": "label", "description": "Label an issue", "function_id": "test::prompt",
		"arguments": []map[string]any{{"name": "issue"}, {"name": "kind", "values": []string{"bug", "Build", "feature", "Bugfix", "docs"}}}})
	for _, tc := range []struct {
		value string
		want  []string
	}{
		{"", []string{"bug", "Build", "feature", "Bugfix", "docs"}},
		{"bu", []string{"bug", "Build", "Bugfix"}},
		{"BUG", []string{"bug", "Bugfix"}},
		{"bugf", []string{"Bugfix"}},
		{"x", []string{}},
	} {
		params := &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "label"}, Argument: mcp.CompleteParamsArgument{Name: "kind", Value: tc.value}}
		res, err := r.session.Complete(ctx, params)
		if err != nil || !slices.Equal(res.Completion.Values, tc.want) || res.Completion.Total != len(tc.want) || res.Completion.HasMore {
			t.Errorf("complete label's kind from %q = %+v, %v; want %v", tc.value, res, err, tc.want)
		}
	}
	issue := &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "label"}, Argument: mcp.CompleteParamsArgument{Name: "issue", Value: "b"}}
	if res, err := r.session.Complete(ctx, issue); err != nil || res.Completion.Values == nil || len(res.Completion.Values) != 0 {
		t.Errorf("complete label's issue, which declares no values = %+v, %v; want an empty list", res, err)
	}
	for _, tc := range []struct {
		params *mcp.CompleteParams
		want   string
	}{
		{&mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "nope"}, Argument: mcp.CompleteParamsArgument{Name: "x"}},
			`unknown prompt "nope"`},
		{&mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "triage"}, Argument: mcp.CompleteParamsArgument{Name: "colour"}},
			`the prompt "triage" has no argument "colour"; it takes topic, team`},
		{&mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: "file:///{path}"}, Argument: mcp.CompleteParamsArgument{Name: "path"}},
			`no resource template "file:///{path}"; the templates are iii://{+path} and skill://{+path}`},
		{&mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: "iii://{+path}"}, Argument: mcp.CompleteParamsArgument{Name: "id"}},
			`has one argument, path, not "id"`},
	} {
		_, err := r.session.Complete(ctx, tc.params)
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, tc.want) {
			t.Errorf("complete %+v: %v, want -32602 saying %q", tc.params.Ref, err, tc.want)
		}
	}
}

// A prompt argument's 100 declared values (the most prompts::register
// takes) all fit in one answer; a prefix narrows them with the total.
func TestCompletionOfManyDeclaredValues(t *testing.T) {
	r := newRig(t)
	values := make([]string, maxCompletions)
	for i := range values {
		values[i] = fmt.Sprintf("v%03d", i)
	}
	r.call(t, "prompts::register", map[string]any{"name": "pick", "description": "Pick one", "function_id": "test::prompt",
		"arguments": []map[string]any{{"name": "which", "values": values}}})
	for _, tc := range []struct {
		value string
		want  []string
	}{
		{"v", values},
		{"V09", values[90:]},
	} {
		params := &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "pick"}, Argument: mcp.CompleteParamsArgument{Name: "which", Value: tc.value}}
		res, err := r.session.Complete(context.Background(), params)
		if err != nil || !slices.Equal(res.Completion.Values, tc.want) || res.Completion.Total != len(tc.want) || res.Completion.HasMore {
			t.Errorf("complete pick's which from %q = %+v, %v; want %d values", tc.value, res, err, len(tc.want))
		}
	}
}

// At most 100 values come back, with the total and hasMore.
func TestCompletionCapsItsValues(t *testing.T) {
	values := make([]string, 150)
	for i := range values {
		values[i] = fmt.Sprint(i)
	}
	c := completion(values).Completion
	if len(c.Values) != maxCompletions || c.Total != 150 || !c.HasMore {
		t.Errorf("completion of 150 values = %d values, total %d, hasMore %v", len(c.Values), c.Total, c.HasMore)
	}
}
