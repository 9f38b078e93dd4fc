package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/registry"
)

// linkedRead is what resources/read of an iii:// URI asks the registry
// for (docs/decisions.md D70): the URI itself, or, for one written by
// joining a link to a skill's URI, the URI the link names, by the
// registry's rule; over MCP a trailing '/' names a folder too, which the
// bus's 0.2 resources-read refuses. An error is the link's, as the
// registry would answer it.
func linkedRead(uri string) (target string, err error) {
	target, _, err = registry.LinkTarget(uri)
	if ce, ok := errors.AsType[*contract.Error](err); ok {
		err = &iii.Error{Code: ce.Code, Message: ce.Message}
	}
	return target, err
}

// linkedError adds to the registry's not_found for a link what the link
// resolved to, when that is not the URI asked for.
func linkedError(err error, uri, target string) error {
	var ie *iii.Error
	if target == uri || !errors.As(err, &ie) || ie.Code != contract.CodeNotFound {
		return err
	}
	return &iii.Error{Code: ie.Code, Message: fmt.Sprintf("%s (the link resolves to %s)", ie.Message, target)}
}

// readBraced answers resources/read of a URI with a '{' or '}', as a link
// joined to a skill's URI holds ({baseDir}/scripts/x.py): no URI template
// matches those characters, so the SDK would answer that no such resource
// exists before the bridge's handlers saw it.
func (b *Bridge) readBraced(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	if strings.HasPrefix(req.Params.URI, skillScheme) {
		return b.readSkillFile(ctx, req)
	}
	return b.read(ctx, req)
}

// braced reports whether uri holds a character no URI template matches.
func braced(uri string) bool { return strings.ContainsAny(uri, "{}") }
