package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/registry"
)

// Sections over MCP (docs/decisions.md D60). A read of iii://fn/<a>/<b>
// runs the function a::b with {}. On the bus that is 0.2's behaviour and
// stays so; to MCP clients, a section runs only a function exposed to MCP
// by the rule tools/call follows (exposedToMCP), or one the server's
// allow-list names (SectionsAllow). Anything else is refused here, before
// the registry is called, so the function is not run. The rule lives in
// the bridge because only the bridge knows a request came from MCP, and
// because the registry answering it may be any 0.2 worker on the engine.
//
// Every path that reads a URI for a client goes through allowSections:
// resources/read, resources/subscribe (which reads to check) and
// skill__fetch, whose URIs are checked all together first, so a batch with
// one refused section runs none (skill::fetch answers all or nothing). A
// skill's body is served as it is: the links in it are not followed.

// SectionsAllow lets MCP clients read the iii://fn sections of functions
// not exposed to MCP: each pattern is a function id, or a prefix ending
// in * ("docs::*"). None by default (the config key mcp.sections_allow).
func SectionsAllow(patterns ...string) Option {
	return func(b *Bridge) { b.sectionsAllow = slices.Clone(patterns) }
}

// sectionAllowed reports whether patterns name the function id.
func sectionAllowed(patterns []string, id string) bool {
	for _, p := range patterns {
		if prefix, glob := strings.CutSuffix(p, "*"); glob && strings.HasPrefix(id, prefix) || p == id {
			return true
		}
	}
	return false
}

// refusedSection is a section a client may not read, and whether its
// function is registered on the engine at all.
type refusedSection struct {
	uri, function string
	registered    bool
}

// sectionsRefused is the error for reads of sections MCP clients may not
// run: it names each function and says how to allow it.
type sectionsRefused []refusedSection

func (s sectionsRefused) Error() string {
	var b strings.Builder
	for i, r := range s {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s runs the function %s, which ", quoteURI(r.uri), r.function)
		if r.registered {
			b.WriteString("is not exposed to MCP clients")
		} else {
			b.WriteString("is not registered on the engine")
		}
	}
	fmt.Fprintf(&b, ". Nothing was run: over MCP, an iii://fn section runs only a function registered with the metadata \"mcp.expose\": true (as for tools/call), or one named under mcp.sections_allow in skills mcp's config (a function id, or a prefix ending in *, e.g. %q)",
		s[0].function)
	return b.String()
}

// allowSections returns sectionsRefused naming the sections among uris
// that MCP clients may not read, or nil. Only a section not allow-listed
// costs a look at the engine's function list. Sections in the engine's
// and the registry's namespaces are left to the registry, which refuses
// them itself without running them (contract.IsInternal).
func (b *Bridge) allowSections(ctx context.Context, uris []string) error {
	var check []refusedSection
	for _, uri := range uris {
		u, err := registry.Parse(uri)
		if err != nil || u.Kind != registry.KindSection || contract.IsInternal(u.FunctionID) || sectionAllowed(b.sectionsAllow, u.FunctionID) {
			continue // the registry answers a URI that is no section as before
		}
		check = append(check, refusedSection{uri: uri, function: u.FunctionID})
	}
	if len(check) == 0 {
		return nil
	}
	all, err := b.functions(ctx)
	if err != nil {
		return err
	}
	var refused sectionsRefused
	for _, s := range check {
		i := slices.IndexFunc(all, func(f functionRow) bool { return f.ID == s.function })
		if i >= 0 && exposedToMCP(all[i]) {
			continue
		}
		s.registered = i >= 0
		refused = append(refused, s)
	}
	if len(refused) == 0 {
		return nil
	}
	return refused
}
