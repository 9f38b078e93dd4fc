package iii

import (
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
	return c.namespace
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
