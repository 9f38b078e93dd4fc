package buildinfo

import (
	"bytes"
	"encoding/json"

	"github.com/iii-hq/skills-go/internal/config"
)

// Manifest is the document `skills --manifest` prints (docs/reference.md#manifest
// with docs/decisions.md D13). Field order is the JSON key order.
type Manifest struct {
	Name             string        `json:"name"`
	Version          string        `json:"version"`
	Description      string        `json:"description"`
	DefaultConfig    DefaultConfig `json:"default_config"`
	SupportedTargets []string      `json:"supported_targets"`
}

// DefaultConfig is the manifest's default_config. Its keys are in
// alphabetical order, as the Rust worker's untyped JSON map prints them.
type DefaultConfig struct {
	Prompts        []string       `json:"prompts"`
	Scopes         ManifestScopes `json:"scopes"`
	Skills         []string       `json:"skills"`
	StateTimeoutMS int64          `json:"state_timeout_ms"`
}

// ManifestScopes is default_config.scopes, keys in alphabetical order.
type ManifestScopes struct {
	Prompts string `json:"prompts"`
	Skills  string `json:"skills"`
}

// NewManifest describes this binary: Name, Version, Description, the
// config defaults (config.Default, without the optional base_dir) and the
// one target it was built for.
func NewManifest() Manifest { return manifestOf(Version) }

// manifestOf is NewManifest for a build whose version is version, so a
// test can describe a release build without setting Version.
func manifestOf(version string) Manifest {
	d := config.Default()
	return Manifest{
		Name:        Name,
		Version:     version,
		Description: Description,
		DefaultConfig: DefaultConfig{
			Prompts:        nonNil(d.Prompts),
			Scopes:         ManifestScopes{Prompts: d.Scopes.Prompts, Skills: d.Scopes.Skills},
			Skills:         nonNil(d.Skills),
			StateTimeoutMS: d.StateTimeoutMS,
		},
		SupportedTargets: []string{Target()},
	}
}

// JSON renders the manifest as the Rust worker does: indented by two
// spaces, empty lists as [], no HTML escaping, with a trailing newline.
func (m Manifest) JSON() []byte {
	m.DefaultConfig.Prompts = nonNil(m.DefaultConfig.Prompts)
	m.DefaultConfig.Skills = nonNil(m.DefaultConfig.Skills)
	m.SupportedTargets = nonNil(m.SupportedTargets)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		// Only strings, ints and string slices: encoding cannot fail.
		panic("buildinfo: encode manifest: " + err.Error())
	}
	return buf.Bytes()
}

// nonNil turns a nil list into an empty one, which JSON prints as [].
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
