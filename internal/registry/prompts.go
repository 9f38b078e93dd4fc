package registry

import (
	"context"
	"strings"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/paging"
)

type registerPromptInput struct {
	Name        string           `json:"name" jsonschema_description:"Unique prompt name (lowercase ASCII, kebab/underscore, max 64 chars)."`
	Description string           `json:"description" jsonschema_description:"Free-text description shown in the client's prompt picker."`
	FunctionID  string           `json:"function_id" jsonschema_description:"Handler function called on prompts/get with the supplied arguments."`
	Arguments   []promptArgument `json:"arguments,omitempty" jsonschema_description:"Arguments the client asks the user for; the handler receives them as its payload."`
	// Version is additive: 0.2's answer is unchanged unless asked (D78).
	Version bool `json:"version,omitempty" jsonschema_description:"Additive (docs/decisions.md D78): true to have the answer name this write's version, to pass as after to a later read on any replica."`
	// CallerWorker is the engine's _caller_worker_id: the writer a new
	// revision records (D83). Not part of the schema: the engine adds it.
	CallerWorker string `json:"_caller_worker_id,omitempty" jsonschema:"-"`
}

type promptArgument struct {
	Name        string   `json:"name" jsonschema_description:"Argument name, unique within the prompt."`
	Description *string  `json:"description,omitempty" jsonschema_description:"What the argument is for."`
	Required    bool     `json:"required,omitempty" jsonschema_description:"Whether the client must supply it (default false)."`
	Values      []string `json:"values,omitempty" jsonschema_description:"Values the argument may take, offered by MCP completion as the user types; suggestions, not a constraint on prompts::mcp-get. At most 100, each non-blank and at most 200 bytes, no duplicates."`
}

// Limits on an argument's declared values: one completion answer holds
// them all (the MCP spec's 100), and each is a short word or phrase.
const (
	maxArgValues     = 100
	maxArgValueBytes = 200
)

type registerPromptOutput struct {
	Name         string `json:"name"`
	RegisteredAt string `json:"registered_at"`
	Version      string `json:"version,omitempty" jsonschema_description:"Additive (docs/decisions.md D78), only when the request asked for it: the version of this write. Pass it as after to a read on any replica, and the read answers with this write or a newer one."`
}

type unregisterPromptInput struct {
	Name    string `json:"name" jsonschema_description:"Name of the prompt to remove."`
	Version bool   `json:"version,omitempty" jsonschema_description:"Additive (docs/decisions.md D78): true to have the answer name this write's version, to pass as after to a later read on any replica."`
}

type unregisterPromptOutput struct {
	Name    string `json:"name"`
	Removed bool   `json:"removed"`
	Version string `json:"version,omitempty" jsonschema_description:"Additive (docs/decisions.md D78), only when the request asked for it: the version of this write. Pass it as after to a read on any replica, and the read answers with this write or a newer one."`
}

type listPromptsOutput struct {
	Prompts []promptEntry `json:"prompts"`
}

type promptEntry struct {
	Name         string `json:"name"`
	FunctionID   string `json:"function_id" jsonschema_description:"Handler function id; empty for fs entries."`
	Arguments    int    `json:"arguments" jsonschema:"minimum=0" jsonschema_description:"Number of declared arguments."`
	RegisteredAt string `json:"registered_at" jsonschema_description:"RFC 3339 UTC time of the last registration (for fs entries: file modification time, or empty when unknown)."`
	Origin       string `json:"origin" jsonschema:"enum=state,enum=fs" jsonschema_description:"'state' for state-backed entries, 'fs' for filesystem-backed."`
	// Additive (docs/decisions.md D41): an fs prompt's file size and its
	// cost to read; the hex SHA-256 of what defines the prompt: the file,
	// or a state prompt's name, description, arguments and handler.
	Bytes  *int64             `json:"bytes,omitempty" jsonschema_description:"fs entries: the file's size in bytes, frontmatter included."`
	Tokens *int64             `json:"tokens,omitempty" jsonschema_description:"fs entries: bytes/4 rounded up, what the file costs an agent to read."`
	SHA256 string             `json:"sha256,omitempty" jsonschema_description:"Hex SHA-256 of the file (fs) or of the registration's name, description, arguments and function_id (state); changes exactly when the prompt does."`
	Lint   []catalog.LintNote `json:"lint,omitempty" jsonschema_description:"Only on prompts the content checks flagged, under lint.flagged: note: each rule and the line it flagged. skills::diagnostics has the details."`
	// Revision is opt-in, as on skills::list (D86).
	Revision int64 `json:"revision,omitempty" jsonschema_description:"Only when the request asked for it (revision: true), and only on stored entries with one: the definition's revision (docs/decisions.md D86)."`
}

type mcpListOutput struct {
	Prompts    []mcpPrompt `json:"prompts"`
	NextCursor string      `json:"nextCursor,omitempty"`
}

type mcpPrompt struct {
	Name        string              `json:"name"`
	Description string              `json:"description"`
	Arguments   []catalog.PromptArg `json:"arguments"`
	// Meta is MCP's _meta: only on a prompt the content checks flagged,
	// under lint.flagged: note, its notes at contract.MetaKeyLint
	// (docs/decisions.md D65); absent everywhere else.
	Meta map[string]any `json:"_meta,omitempty" jsonschema_description:"Only on entries the content checks flagged, under lint.flagged: note: dev.iii.skills/lint, each rule and the line it flagged. skills::diagnostics has the details."`
}

// promptChange is the prompts::on-change payload.
type promptChange struct {
	Op     string `json:"op"`
	Name   string `json:"name"`
	Source string `json:"source,omitempty"` // "fs" for file changes (D21); absent for state, as in 0.2
}

func (r *Registry) registerPrompt(ctx context.Context, in registerPromptInput) (registerPromptOutput, error) {
	if err := ids.ValidatePromptName(in.Name); err != nil {
		return registerPromptOutput{}, contract.Invalid(err)
	}
	if strings.TrimSpace(in.Description) == "" {
		return registerPromptOutput{}, contract.Invalidf("description must be non-empty")
	}
	if strings.TrimSpace(in.FunctionID) == "" {
		return registerPromptOutput{}, contract.Invalidf("function_id must be non-empty")
	}
	args, err := promptArguments(in.Arguments)
	if err != nil {
		return registerPromptOutput{}, err
	}
	// description and function_id are stored as given, as the Rust worker
	// stores them; only their validation trims.
	row := catalog.PromptRow{Name: in.Name, Description: in.Description, Arguments: args, FunctionID: in.FunctionID, RegisteredAt: catalog.Timestamp(r.now())}
	_, ver, err := r.view.PutPromptRevision(ctx, catalog.PromptWrite{Row: row, Worker: in.CallerWorker})
	if err != nil {
		return registerPromptOutput{}, err
	}
	r.log.Info("prompt registered", zap.String("prompt", in.Name))
	r.notify(ctx, r.promptsChanged, promptChange{Op: opRegister, Name: in.Name})
	return registerPromptOutput{Name: in.Name, RegisteredAt: row.RegisteredAt, Version: versionIf(in.Version, ver)}, nil
}

// promptArguments validates declared arguments in order: names must be
// non-blank and unique (compared exactly, as given).
func promptArguments(in []promptArgument) ([]catalog.PromptArg, error) {
	rows := make([]catalog.PromptArg, 0, len(in))
	seen := make(map[string]struct{}, len(in))
	for _, a := range in {
		if strings.TrimSpace(a.Name) == "" {
			return nil, contract.Invalidf("argument name must be non-empty")
		}
		if _, dup := seen[a.Name]; dup {
			return nil, contract.Invalidf("duplicate argument name: %s", ids.Unquoted(a.Name))
		}
		seen[a.Name] = struct{}{}
		if err := argValues(a.Name, a.Values); err != nil {
			return nil, err
		}
		rows = append(rows, catalog.PromptArg(a))
	}
	return rows, nil
}

// argValues checks the values declared for the argument name.
func argValues(name string, values []string) error {
	if len(values) > maxArgValues {
		return contract.Invalidf("argument %s declares %d values; at most %d are allowed", ids.Quote(name), len(values), maxArgValues)
	}
	seen := make(map[string]struct{}, len(values))
	for i, v := range values {
		switch {
		case strings.TrimSpace(v) == "":
			return contract.Invalidf("argument %s: values[%d] %s is blank; each value must be a non-empty string", ids.Quote(name), i, ids.Quote(v))
		case len(v) > maxArgValueBytes:
			return contract.Invalidf("argument %s: values[%d] %s is too long; each value may be at most %d bytes", ids.Quote(name), i, ids.Quote(v), maxArgValueBytes)
		}
		if _, dup := seen[v]; dup {
			return contract.Invalidf("argument %s: duplicate value %s; each value may be declared once", ids.Quote(name), ids.Quote(v))
		}
		seen[v] = struct{}{}
	}
	return nil
}

func (r *Registry) unregisterPrompt(ctx context.Context, in unregisterPromptInput) (unregisterPromptOutput, error) {
	if err := ids.ValidatePromptName(in.Name); err != nil {
		return unregisterPromptOutput{}, contract.Invalid(err)
	}
	removed, ver, err := r.view.DeletePromptVersion(ctx, in.Name)
	if err != nil {
		return unregisterPromptOutput{}, err
	}
	r.log.Info("prompt unregister", zap.String("prompt", in.Name), zap.Bool("removed", removed))
	if removed {
		r.notify(ctx, r.promptsChanged, promptChange{Op: opUnregister, Name: in.Name})
	}
	return unregisterPromptOutput{Name: in.Name, Removed: removed, Version: versionIf(in.Version, ver)}, nil
}

// listPromptsInput is prompts::list's payload: readInput's, and whether
// to name each stored entry's revision.
type listPromptsInput struct {
	readInput
	// Revision is opt-in so that a 0.2 caller gets 0.2's bytes (D86).
	Revision bool `json:"revision,omitempty" jsonschema_description:"Additive (docs/decisions.md D86): true to have each stored prompt's entry name its revision (as prompts::history numbers them)."`
}

// listPromptsAfter is the prompts::list handler: listPrompts once the
// versions in after are served (docs/decisions.md D78), with each stored
// entry's revision when asked (D86).
func (r *Registry) listPromptsAfter(ctx context.Context, in listPromptsInput) (listPromptsOutput, error) {
	if err := r.view.ReadAfter(ctx, in.After); err != nil {
		return listPromptsOutput{}, err
	}
	return r.listPromptsOf(ctx, in.Revision)
}

func (r *Registry) listPrompts(ctx context.Context, _ emptyInput) (listPromptsOutput, error) {
	return r.listPromptsOf(ctx, false)
}

// listPromptsOf renders prompts::list, naming each stored entry's
// revision when withRevision.
func (r *Registry) listPromptsOf(ctx context.Context, withRevision bool) (listPromptsOutput, error) {
	l, err := r.view.Prompts(ctx)
	if err != nil {
		return listPromptsOutput{}, err
	}
	out := listPromptsOutput{Prompts: make([]promptEntry, len(l.Prompts))}
	for i, p := range l.Prompts {
		if p.Origin == originState {
			out.Prompts[i] = promptEntry{Name: p.Name, FunctionID: p.Row.FunctionID, Arguments: len(p.Row.Arguments), RegisteredAt: p.Row.RegisteredAt, Origin: originState,
				SHA256: p.SHA256, Lint: r.lintNotes(p.Lint)}
			if withRevision {
				out.Prompts[i].Revision = p.Row.Revision
			}
			continue
		}
		size, tokens := p.File.Size, tokensOf(p.File.Size)
		out.Prompts[i] = promptEntry{Name: p.Name, RegisteredAt: catalog.Timestamp(p.File.ModTime), Origin: originFS,
			Bytes: &size, Tokens: &tokens, SHA256: p.SHA256, Lint: r.lintNotes(p.Lint)}
	}
	return out, nil
}

func (r *Registry) mcpListPrompts(ctx context.Context, in listInput) (mcpListOutput, error) {
	if err := r.view.ReadAfter(ctx, in.After); err != nil {
		return mcpListOutput{}, err
	}
	out := r.allMCPPrompts(ctx)
	pageSize := r.Budgets().PageSize
	if pageSize == 0 {
		return out, nil
	}
	keys := make([]string, len(out.Prompts))
	for i, p := range out.Prompts {
		keys[i] = p.Name
	}
	start, end, next, err := paging.Cut("prompts", keys, in.Cursor, pageSize)
	if err != nil {
		return mcpListOutput{}, err
	}
	return mcpListOutput{Prompts: out.Prompts[start:end], NextCursor: next}, nil
}

// allMCPPrompts is the whole mcp-list, rendered once per catalog version
// and overlay snapshot, like the index (D19).
func (r *Registry) allMCPPrompts(ctx context.Context) mcpListOutput {
	version, cacheable := r.view.PromptsVersion(ctx)
	if cacheable {
		if out, ok := r.mcpListCache.get(version); ok {
			return out
		}
	}
	l, err := r.view.Prompts(ctx)
	if err != nil {
		// The fs prompts are still worth listing.
		r.log.Warn("mcp-list: state unavailable, listing fs prompts only", zap.Error(err))
	}
	out := mcpListOutput{Prompts: make([]mcpPrompt, len(l.Prompts))}
	for i, p := range l.Prompts {
		if p.Origin == originState {
			out.Prompts[i] = mcpPrompt{Name: p.Name, Description: p.Row.Description, Arguments: p.Row.Arguments, Meta: r.view.LintMeta(p.Lint)}
		} else {
			out.Prompts[i] = mcpPrompt{Name: p.Name, Description: p.File.Description, Arguments: []catalog.PromptArg{}, Meta: r.view.LintMeta(p.Lint)}
		}
	}
	if cacheable && err == nil {
		r.mcpListCache.put(version, out)
	}
	return out
}
