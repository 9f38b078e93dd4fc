package mcpserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/iii"
)

// Every registry error reaches a client here, in one of three shapes: a
// protocol error of a list, a read or a prompt (-32602 for what the
// client got wrong, -32603 for what the server could not do), the
// extension's own (registryError, skills_ext.go), or a tool's error
// result, which the model reads. Each says what was wrong, with the
// value, and what is allowed.

// The schemes the bridge serves.
const iiiScheme = "iii://"

// unreachableError is a call that never reached the registry: the engine
// is away, or the registry is not on it.
type unreachableError struct {
	msg string
	err error
}

func (e *unreachableError) Error() string { return e.msg }
func (e *unreachableError) Unwrap() error { return e.err }

// unreachable names the engine in a call's failure when the call did not
// reach the registry, and says what to do; other failures are the
// registry's own answer, returned as they are.
func (b *Bridge) unreachable(fn string, err error) error {
	engine := "the engine"
	if b.engine != "" {
		engine = "the engine at " + b.engine
	}
	advice := ""
	if b.advice != "" {
		advice = "; " + b.advice
	}
	var ie *iii.Error
	switch {
	case errors.Is(err, iii.ErrNotConnected):
		return &unreachableError{fmt.Sprintf("%s cannot be reached, so the registry cannot answer %s (%v)%s", engine, fn, err, advice), err}
	case errors.As(err, &ie) && ie.Code == iii.CodeFunctionNotFound && registryFunction(fn):
		return &unreachableError{fmt.Sprintf("the registry is not connected to %s: %s is not registered there (is the skills worker running?)%s", engine, fn, advice), err}
	case errors.As(err, &ie) && ie.Code == iii.CodeFunctionNotFound:
		return &unreachableError{fmt.Sprintf("%s is not registered on %s: its worker has gone; tools/list gives the tools served now", fn, engine), err}
	case errors.Is(err, iii.ErrTimeout):
		return &unreachableError{fmt.Sprintf("%s did not answer %s in time (%v)%s", engine, fn, err, advice), err}
	}
	return err
}

// registryFunction reports whether fn is one of the registry's (or the
// engine's own), rather than a function another worker exposes.
func registryFunction(fn string) bool {
	for _, p := range []string{"skills::", "prompts::", "skill::", "engine::"} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

// protocolError is err as a JSON-RPC error: a registry's invalid
// argument or unknown entry is invalid params (-32602), with its
// message; anything else, an engine away included, is an internal error
// (-32603) that says what failed.
func protocolError(err error) error {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return je
	}
	var ie *iii.Error
	if errors.As(err, &ie) && (ie.Code == contract.CodeInvalidArgument || ie.Code == contract.CodeNotFound) {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: ie.Message}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}

// resourceError turns a failed read of uri into the MCP error: an unknown
// resource is the resource-not-found error (-32602 since SEP-2164, with
// the URI in its data), whose message names the URI and the registry's
// reason; a malformed URI, and a section MCP clients may not read
// (sections.go), are invalid params; the rest as protocolError.
func resourceError(err error, uri string) error {
	var refused sectionsRefused
	if errors.As(err, &refused) {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: refused.Error(), Data: uriData(uri)}
	}
	var ie *iii.Error
	if errors.As(err, &ie) && ie.Code == contract.CodeNotFound {
		return &jsonrpc.Error{
			Code:    mcp.CodeResourceNotFound,
			Message: fmt.Sprintf("resource %s not found: %s; resources/list gives the skills served, and iii://skills is the index", quoteURI(uri), ie.Message),
			Data:    uriData(uri),
		}
	}
	if errors.As(err, &ie) && ie.Code == contract.CodeInvalidArgument {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("resource %s: %s", quoteURI(uri), ie.Message), Data: uriData(uri)}
	}
	return protocolError(err)
}

// schemeError answers a URI of a scheme the bridge does not serve.
func schemeError(uri string) error {
	scheme := "no scheme"
	if i := strings.Index(uri, "://"); i > 0 {
		scheme = "the scheme " + uri[:i+3]
	}
	return &jsonrpc.Error{
		Code:    mcp.CodeResourceNotFound,
		Message: fmt.Sprintf("resource %s not found: it has %s, and only iii:// and skill:// URIs are served (iii://<skill-id>, iii://skills, skill://<skill>/SKILL.md)", quoteURI(uri), scheme),
		Data:    uriData(uri),
	}
}

// served reports whether uri is of a scheme the bridge serves.
func served(uri string) bool {
	return strings.HasPrefix(uri, iiiScheme) || strings.HasPrefix(uri, skillScheme)
}

// wireSafe is err as the SDK can write it. The SDK writes a
// *jsonrpc.Error's data as it is, and a response that does not encode
// ends the session (over stdio, the process; over Streamable HTTP, every
// later request of the session gets an empty answer). Its own
// resource-not-found error (mcp.ResourceNotFoundError, v1.8.0) quotes the
// URI with Go's %q, which is not JSON when the URI holds a control
// character (docs/mcp.md, "Errors"). So data that is not JSON is
// replaced: for a read, by the URI encoded as JSON; else it is dropped.
// The code and the message stay.
func wireSafe(err error, req mcp.Request) error {
	je, ok := err.(*jsonrpc.Error) // a wrapped one is written without its data
	if !ok || len(je.Data) == 0 || json.Valid(je.Data) {
		return err
	}
	safe := *je
	safe.Data = nil
	if r, ok := req.(*mcp.ReadResourceRequest); ok && r.Params != nil {
		safe.Data = uriData(r.Params.URI)
	}
	return &safe
}

// uriData is {"uri": uri}, as JSON whatever uri holds.
func uriData(uri string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"uri": uri})
	return b
}

// quoteURI is uri as a message shows it: as it is when it is printable
// and short, else quoted and cut.
func quoteURI(uri string) string {
	const limit = 200
	if len(uri) > limit {
		return fmt.Sprintf("%q…", uri[:limit])
	}
	if uri == "" || strings.ContainsFunc(uri, func(r rune) bool { return r < ' ' || r == ' ' || r == 0x7f }) {
		return fmt.Sprintf("%q", uri)
	}
	return uri
}

// promptError turns a failed prompts/get or completion of name into the
// MCP error: an unknown prompt is invalid params that names it.
func promptError(err error, name string) error {
	var ie *iii.Error
	if errors.As(err, &ie) && ie.Code == contract.CodeNotFound {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("unknown prompt %q (%s); prompts/list gives the names of the prompts served", name, ie.Message)}
	}
	return protocolError(err)
}
