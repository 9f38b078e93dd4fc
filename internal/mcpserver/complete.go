package mcpserver

import (
	"context"
	"fmt"
	"github.com/iii-hq/skills-go/internal/contract"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxCompletions is the most values one completion/complete answers, the
// spec's limit; total and hasMore say how many more there are.
const maxCompletions = 100

// complete answers completion/complete, so clients can offer values as a
// user types:
//   - a prompt's argument (ref/prompt): the values prompts::register
//     declared for it that start with what was typed, ignoring case, in
//     their declared order; none declared is an empty list;
//   - the iii://{+path} template's path (ref/resource): the ids of the
//     skills served, and "skills" for the index, that start with what was
//     typed;
//   - the skill://{+path} template: nothing to offer (skills/list lists
//     its files).
//
// An unknown prompt, an argument a prompt does not take and a template
// the server does not have are invalid params that say what there is.
func (b *Bridge) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	ref, arg := req.Params.Ref, req.Params.Argument
	switch ref.Type {
	case "ref/prompt":
		return b.completePrompt(ctx, ref.Name, arg)
	case "ref/resource":
		switch ref.URI {
		case iiiTemplate.URITemplate:
			if arg.Name != "path" {
				return nil, invalidParams("completion/complete: the template %s has one argument, path, not %q", ref.URI, arg.Name)
			}
			return b.completeSkillIDs(ctx, arg.Value)
		case skillTemplate.URITemplate:
			return completion(nil), nil
		}
		return nil, invalidParams("completion/complete: no resource template %q; the templates are %s and %s", ref.URI, iiiTemplate.URITemplate, skillTemplate.URITemplate)
	}
	return nil, invalidParams("completion/complete: ref.type %q is neither ref/prompt nor ref/resource", ref.Type)
}

// completePrompt completes an argument of the prompt name.
func (b *Bridge) completePrompt(ctx context.Context, name string, arg mcp.CompleteParamsArgument) (*mcp.CompleteResult, error) {
	var found *promptValues
	err := eachPage(ctx, b.promptValuesPage, func(p *promptValues) bool {
		if p.Name == name {
			found = p
		}
		return found == nil
	})
	if err != nil {
		return nil, protocolError(err)
	}
	if found == nil {
		return nil, invalidParams("completion/complete: unknown prompt %q; prompts/list gives the names of the prompts served", name)
	}
	var names []string
	for _, a := range found.Arguments {
		if a.Name == arg.Name {
			return completion(startingWith(a.Values, arg.Value)), nil
		}
		names = append(names, a.Name)
	}
	if len(names) == 0 {
		return nil, invalidParams("completion/complete: the prompt %q takes no arguments, so not %q", name, arg.Name)
	}
	return nil, invalidParams("completion/complete: the prompt %q has no argument %q; it takes %s", name, arg.Name, strings.Join(names, ", "))
}

// promptValues is a prompts::mcp-list entry with what completion needs:
// the arguments' declared values, which the SDK's mcp.PromptArgument
// does not carry (docs/decisions.md D45).
type promptValues struct {
	Name      string `json:"name"`
	Arguments []struct {
		Name   string   `json:"name"`
		Values []string `json:"values"`
	} `json:"arguments"`
}

func (b *Bridge) promptValuesPage(ctx context.Context, cursor string) ([]*promptValues, string, error) {
	var page struct {
		Prompts    []*promptValues `json:"prompts"`
		NextCursor string          `json:"nextCursor"`
	}
	err := b.call(ctx, contract.FnPromptsMCPList, cursorPayload(cursor), &page)
	return page.Prompts, page.NextCursor, err
}

// startingWith gives the values that start with prefix, ignoring case,
// in their order.
func startingWith(values []string, prefix string) []string {
	var out []string
	prefix = strings.ToLower(prefix)
	for _, v := range values {
		if strings.HasPrefix(strings.ToLower(v), prefix) {
			out = append(out, v)
		}
	}
	return out
}

// completeSkillIDs gives the served skill ids (and "skills", the index)
// that start with prefix, sorted.
func (b *Bridge) completeSkillIDs(ctx context.Context, prefix string) (*mcp.CompleteResult, error) {
	var ids []string
	err := eachPage(ctx, b.resourcesPage, func(r *mcp.Resource) bool {
		if id, ok := strings.CutPrefix(r.URI, iiiScheme); ok && strings.HasPrefix(id, prefix) {
			ids = append(ids, id)
		}
		return true
	})
	if err != nil {
		return nil, protocolError(err)
	}
	slices.Sort(ids)
	return completion(slices.Compact(ids)), nil
}

// eachPage calls visit on every entry of a paged registry list, in
// order, until visit returns false.
func eachPage[E any](ctx context.Context, fetch func(context.Context, string) ([]E, string, error), visit func(E) bool) error {
	cursor := ""
	for range pageLimit {
		entries, next, err := fetch(ctx, cursor)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if !visit(e) {
				return nil
			}
		}
		if cursor = next; cursor == "" {
			return nil
		}
	}
	return fmt.Errorf("the registry gave more than %d pages", pageLimit)
}

// completion is the answer for values: the first maxCompletions, the
// total, and whether there are more.
func completion(values []string) *mcp.CompleteResult {
	shown := append([]string{}, values[:min(len(values), maxCompletions)]...)
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{
		Values: shown, Total: len(values), HasMore: len(values) > len(shown),
	}}
}
