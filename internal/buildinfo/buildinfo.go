// Package buildinfo identifies this binary: worker name, version,
// description and the Rust target triple it was built for, and renders the
// --manifest document the iii registry tooling reads.
package buildinfo

// Name is the worker and binary name. The engine may override the worker
// name at run time with III_WORKER_NAME; the binary keeps this one.
const Name = "skills"

// Description is the worker description shown in the registry and sent to
// the engine, identical to the Rust worker's.
const Description = "Agentic content registry worker. Hosts skills + prompts + the iii:// resource resolver that the mcp worker serves to harnesses."

// Version is the release version. Release builds set it with
//
//	go build -ldflags "-X github.com/iii-hq/skills-go/internal/buildinfo.Version=0.2.5" ./cmd/skills
//
// It stays a variable (not a constant) because -X can only set variables.
var Version = "0.2.5-dev"
