// Package buildinfo identifies this binary: worker name, version,
// description and the Rust target triple it was built for, and renders the
// --manifest document the iii registry tooling reads.
package buildinfo

import (
	"regexp"
	"runtime/debug"
	"strings"
)

// Name is the worker and binary name. The engine may override the worker
// name at run time with III_WORKER_NAME; the binary keeps this one.
const Name = "skills"

// Description is the worker description shown in the registry and sent to
// the engine, identical to the Rust worker's.
const Description = "Agentic content registry worker. Hosts skills + prompts + the iii:// resource resolver that the mcp worker serves to harnesses."

// Version is the version this binary reports (--version, --manifest, the
// engine's worker list). Release builds set it with
//
//	go build -ldflags "-X github.com/iii-hq/skills-go/internal/buildinfo.Version=0.2.5" ./cmd/skills
//
// (a variable, because -X can only set variables). Left unset, it is
// read from the build information Go records (see versionOf), so `go
// install …@v0.2.5`, a build in a checkout (`make build`, `go build`) and
// `go run` all follow one rule.
var Version string

func init() {
	if Version == "" {
		bi, ok := debug.ReadBuildInfo()
		if !ok {
			bi = nil
		}
		Version = versionOf(bi)
	}
}

// DevVersion is what a build reports when nothing says which release it
// is: the release line under development. Bump it after each release.
const DevVersion = "0.2.5-dev"

// pseudoVersion matches the versions Go makes up for a module built from
// a commit rather than a tag (v0.0.0-20261126042438-3a63049acf01, with
// +dirty when the checkout has changes).
var pseudoVersion = regexp.MustCompile(`\d{14}-[0-9a-f]{12}(\+dirty)?$`)

// versionOf is the version of a binary built without -X: the module's
// version when it was built at a release tag (go install …@v0.2.5 gives
// 0.2.5), else DevVersion with the commit it was built from when Go
// recorded one (a build in a checkout: 0.2.5-dev+3a63049acf01, .dirty
// added when the checkout had changes), else DevVersion alone (go run,
// which records no commit).
func versionOf(bi *debug.BuildInfo) string {
	if bi == nil {
		return DevVersion
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" && !pseudoVersion.MatchString(v) {
		return strings.TrimPrefix(v, "v")
	}
	var rev string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return DevVersion
	}
	v := DevVersion + "+" + rev[:min(12, len(rev))]
	if dirty {
		v += ".dirty"
	}
	return v
}
