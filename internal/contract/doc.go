// Package contract is the skills worker's wire contract, written once:
// the function ids it registers, the trigger types it provides with their
// descriptions, the error codes its handlers answer with (and the one
// place a situation is mapped to a code), and the namespaces no skill
// resource, prompt handler, exposed tool or tool skill may reach.
//
// Every string here is visible to 0.2 clients; none may change without a
// decision in docs/decisions.md.
package contract
