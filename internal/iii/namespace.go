package iii

import (
	"context"
	"fmt"
	"strings"
)

// DefaultNamespace is the engine's namespace for a worker that declares
// none (engine 0.23; docs/deployment.md#namespaces). A 0.22 engine has
// no other.
const DefaultNamespace = "default"

// Which namespace each frame names, as the official SDKs decide it (Node
// iii-sdk 0.23: resolveNamespace, callNamespace, invocationNamespace):
//
//   - the worker's namespace (Options.Namespace) rides on the
//     engine::workers::register call, and the engine places the
//     connection's functions and trigger types there;
//   - a call names the namespace its Invocation gives, else the worker's,
//     except an engine::* function, whose home is always the default
//     namespace (the engine refuses engine::* ids elsewhere);
//   - a binding names the namespace its Trigger gives, else the worker's,
//     since the function it targets is most often the worker's own (the
//     engine resolves a binding without one in the default namespace);
//   - a worker in the default namespace sends no namespace field unless a
//     call or binding names one, so its frames are those of 0.22 byte for
//     byte.
//
// A namespace named and left blank ("  ") is refused, not read as absent:
// absent asks for the worker's namespace, blank names nothing.

// workerNamespace is Options.Namespace as the client uses it: "" for the
// default namespace, however it was spelt. New panics on a blank one.
func workerNamespace(ns string) string {
	if ns != "" && strings.TrimSpace(ns) == "" {
		panic(fmt.Sprintf("iii: Options.Namespace %q is blank; name a namespace, or leave it empty for the engine's default", ns))
	}
	if ns == DefaultNamespace {
		return ""
	}
	return ns
}

// checkNamespace refuses a namespace that was named and left blank; what
// names the field it came from.
func checkNamespace(ns, what string) error {
	if ns != "" && strings.TrimSpace(ns) == "" {
		return fmt.Errorf("%s %q is blank; name a namespace, or leave it empty for this worker's namespace", what, ns)
	}
	return nil
}

// callNamespace is the namespace a call to functionID names on the wire:
// the explicit one, else "default" for an engine::* function, else the
// worker's; "" (no field) for a worker in the default namespace.
func (c *Client) callNamespace(explicit, functionID string) string {
	switch {
	case explicit != "":
		return explicit
	case c.namespace == "":
		return ""
	case strings.HasPrefix(functionID, "engine::"):
		return DefaultNamespace
	}
	if ns, ok := c.routedNamespace(functionID); ok {
		return ns
	}
	return c.namespace
}

// RouteNamespace makes the calls of a worker outside the default
// namespace to functions whose id starts with prefix, when they name no
// namespace, go to ns instead of the worker's own namespace; ns "" undoes
// it. The catalog routes state::* to the namespace where it found the
// engine's state worker (docs/deployment.md#namespaces): the worker's
// own when the project runs one, else the default namespace, where an
// engine's built-in state lives — the order in which the engine finds a
// trigger type's provider. A worker in the default namespace sends no
// namespace field whatever the routes say, so its frames stay 0.22's.
func (c *Client) RouteNamespace(prefix, ns string) {
	c.routesMu.Lock()
	defer c.routesMu.Unlock()
	if held, ok := c.holds[prefix]; ok {
		close(held)
		delete(c.holds, prefix)
	}
	if ns == "" || ns == c.namespace {
		delete(c.routes, prefix)
		return
	}
	if c.routes == nil {
		c.routes = map[string]string{}
	}
	c.routes[prefix] = ns
}

// HoldNamespace makes the synchronous calls of a worker outside the
// default namespace to functions whose id starts with prefix, when they
// name no namespace, wait until RouteNamespace routes that prefix (or
// their context ends): the catalog holds state::* until it has found
// where the engine's state worker is, so that no write goes to a
// namespace that has none, or to the wrong one. A worker in the default
// namespace never waits; void calls never wait.
func (c *Client) HoldNamespace(prefix string) {
	if c.namespace == "" {
		return
	}
	c.routesMu.Lock()
	defer c.routesMu.Unlock()
	if c.holds == nil {
		c.holds = map[string]chan struct{}{}
	}
	if _, ok := c.holds[prefix]; !ok {
		c.holds[prefix] = make(chan struct{})
	}
}

// waitRoute waits while a HoldNamespace covers the call inv makes.
func (c *Client) waitRoute(ctx context.Context, inv Invocation) error {
	if c.namespace == "" || inv.Namespace != "" {
		return nil
	}
	c.routesMu.RLock()
	var held chan struct{}
	for prefix, ch := range c.holds {
		if strings.HasPrefix(inv.FunctionID, prefix) {
			held = ch
			break
		}
	}
	c.routesMu.RUnlock()
	if held == nil {
		return nil
	}
	if _, ok := ctx.Deadline(); !ok && c.opts.CallTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.opts.CallTimeout)
		defer cancel()
	}
	select {
	case <-held:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("invoke %s: waiting to learn which namespace serves it: %w", inv.FunctionID, ctx.Err())
	}
}

// routedNamespace is the namespace RouteNamespace gave the longest prefix
// of functionID, if any.
func (c *Client) routedNamespace(functionID string) (string, bool) {
	c.routesMu.RLock()
	defer c.routesMu.RUnlock()
	best, ns := -1, ""
	for prefix, to := range c.routes {
		if len(prefix) > best && strings.HasPrefix(functionID, prefix) {
			best, ns = len(prefix), to
		}
	}
	return ns, best >= 0
}

// bindingNamespace is the namespace a binding's target function is named
// in: the explicit one, else the worker's.
func (c *Client) bindingNamespace(explicit string) string {
	if explicit != "" {
		return explicit
	}
	return c.namespace
}

// absoluteNamespace is ns, a namespace as the engine writes it (absent is
// the default namespace, not the caller's), made explicit for a call from
// this worker: a worker in another namespace must name "default", or its
// call would go to its own.
func (c *Client) absoluteNamespace(ns string) string {
	if ns == "" && c.namespace != "" {
		return DefaultNamespace
	}
	return ns
}

// Namespace is the namespace this worker registers in: Options.Namespace,
// or DefaultNamespace.
func (c *Client) Namespace() string {
	if c.namespace == "" {
		return DefaultNamespace
	}
	return c.namespace
}
