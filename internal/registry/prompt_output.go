package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
)

type promptGetInput struct {
	Name      string          `json:"name" jsonschema_description:"Name of the prompt to render."`
	Arguments json.RawMessage `json:"arguments,omitempty" jsonschema_description:"Arguments passed as the handler's payload, as given; absent or null means {}. Ignored by fs prompts."`
	// After is additive: catalog.After (docs/decisions.md D78).
	After catalog.After `json:"after,omitempty" jsonschema_description:"Additive (docs/decisions.md D78): a version a write answered with, or a list of them; the answer includes those writes or newer values."`
}

type promptGetOutput struct {
	Description string          `json:"description"`
	Messages    json.RawMessage `json:"messages" jsonschema_description:"MCP prompt messages: [{role, content: {type, text}}, ...]."`
}

type promptMessage struct {
	Role    string      `json:"role"`
	Content textContent `json:"content"`
}

type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// errUnsupportedShape is the reference text for a handler result that is
// neither a string, {content: string} nor {messages: [...]}.
var errUnsupportedShape = errors.New("prompt handler returned unsupported shape; expected string, { content }, or { messages: [...] }")

// getPrompt renders a prompt for MCP prompts/get: a state prompt runs its
// handler with the caller's arguments; an fs prompt is its static body.
func (r *Registry) getPrompt(ctx context.Context, in promptGetInput) (promptGetOutput, error) {
	if err := ids.ValidatePromptName(in.Name); err != nil {
		return promptGetOutput{}, contract.Invalid(err)
	}
	if err := r.view.ReadAfter(ctx, in.After); err != nil {
		return promptGetOutput{}, err
	}
	p, found, err := r.view.Prompt(ctx, in.Name)
	switch {
	case err != nil:
		return promptGetOutput{}, err
	case found && p.Origin == catalog.OriginState:
		return r.runPromptHandler(ctx, p.Row, in.Arguments)
	case found:
		return r.staticPrompt(p.File, in.Arguments)
	}
	return promptGetOutput{}, contract.NotFoundf("Prompt not found: %s", ids.Unquoted(in.Name))
}

// runPromptHandler triggers the prompt's handler with the arguments as its
// payload ({} when absent or null) and normalises what it returns.
func (r *Registry) runPromptHandler(ctx context.Context, row catalog.PromptRow, args json.RawMessage) (promptGetOutput, error) {
	if contract.IsInternal(strings.TrimSpace(row.FunctionID)) {
		return promptGetOutput{}, contract.Forbiddenf("Prompt handler '%s' is in an internal namespace and cannot back a prompt", ids.Unquoted(row.FunctionID))
	}
	payload := contract.Present(args)
	if payload == nil {
		payload = json.RawMessage("{}")
	}
	res, err := r.trigger(ctx, row.FunctionID, payload)
	if err != nil {
		return promptGetOutput{}, err
	}
	messages, err := promptMessages(res)
	if err == nil {
		messages, err = checkMessages(row.FunctionID, messages)
	}
	if err != nil {
		return promptGetOutput{}, contract.UnavailableMsg(err)
	}
	return promptGetOutput{Description: row.Description, Messages: messages}, nil
}

// staticPrompt serves an fs prompt: its body, frontmatter removed, as one
// user message. fs prompts have no templating, so arguments are ignored.
func (r *Registry) staticPrompt(p catalog.FilePrompt, args json.RawMessage) (promptGetOutput, error) {
	body, err := r.view.ReadBody(p.Path)
	if err != nil {
		return promptGetOutput{}, contract.UnavailableMsg(err)
	}
	if a := contract.Present(args); a != nil && !bytes.Equal(a, []byte("{}")) {
		r.log.Debug("fs prompt ignoring caller-supplied arguments (no templating)", zap.String("prompt", p.Name))
	}
	return promptGetOutput{Description: p.Description, Messages: userMessage(body)}, nil
}

// promptMessages normalises a handler result: a string or {content:
// string} becomes one user text message, {messages: [...]} passes through
// untouched (checked first), anything else is an error.
func promptMessages(res json.RawMessage) (json.RawMessage, error) {
	res = contract.Present(res)
	if s, ok := jsonString(res); ok {
		return userMessage(s), nil
	}
	if len(res) > 0 && res[0] == '{' {
		var obj struct {
			Messages json.RawMessage `json:"messages"`
		}
		if json.Unmarshal(res, &obj) == nil {
			if m := bytes.TrimSpace(obj.Messages); len(m) > 0 && m[0] == '[' {
				return m, nil
			}
		}
		if s, ok := contentField(res); ok {
			return userMessage(s), nil
		}
	}
	return nil, errUnsupportedShape
}

// userMessage is the MCP messages array holding text as one user message.
func userMessage(text string) json.RawMessage {
	b, err := json.Marshal([]promptMessage{{Role: "user", Content: textContent{Type: "text", Text: text}}})
	if err != nil {
		panic(err) // a struct of strings always encodes
	}
	return b
}
