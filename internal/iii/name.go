package iii

import (
	"crypto/rand"
	"encoding/hex"
)

// UniqueSuffix is 8 random hex digits: what makes the ids a process
// registers on the engine (its functions, its bindings, its name) its own
// while other processes of the same program, replicas or commands run
// twice, register theirs.
func UniqueSuffix() string {
	var b [4]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// InstanceName is base with a unique suffix (base-1a2b3c4d): the name of
// a client of which several may be connected at once, such as a command
// run twice or the MCP servers of two editors. An iii 0.23 engine leases
// a worker name to one live connection per namespace and refuses a second
// (WORKER_NAMESPACE_CONFLICT), which the client takes as final.
func InstanceName(base string) string { return base + "-" + UniqueSuffix() }
