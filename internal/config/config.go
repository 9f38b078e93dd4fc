// Package config is the worker's configuration as plain data: Default,
// then Parse (or Load, which reads, parses and validates a file), then any
// flag overrides, then Validate. Nothing here logs or touches the network;
// the caller decides what a bad config means (the worker logs one warning
// and boots with Default).
package config

import (
	"math"
	"os"
	"path/filepath"
	"time"
)

// Defaults, as in the reference worker's config.rs and --manifest.
const (
	DefaultSkillsScope    = "skills"
	DefaultPromptsScope   = "prompts"
	DefaultStateTimeoutMS = 10000
)

// MaxStateTimeoutMS is the longest state_timeout_ms a time.Duration holds.
const MaxStateTimeoutMS = math.MaxInt64 / int64(time.Millisecond)

// Config is the worker configuration. The yaml tags name the keys of the
// config file; Parse reads them (see Parse for the accepted types).
type Config struct {
	// Scopes are the iii-state scopes of the two registries.
	Scopes Scopes `yaml:"scopes"`
	// StateTimeoutMS bounds every state::* call and every section or
	// prompt-handler trigger, in milliseconds.
	StateTimeoutMS int64 `yaml:"state_timeout_ms"`
	// Skills are glob patterns of filesystem-backed skills.
	Skills []string `yaml:"skills"`
	// Prompts are glob patterns of filesystem-backed prompts.
	Prompts []string `yaml:"prompts"`
	// BaseDir, when set, is the directory relative glob patterns resolve
	// against (worker.md D10); a relative BaseDir is itself resolved
	// against Dir. "~" is not expanded.
	BaseDir string `yaml:"base_dir"`
	// Dir is the absolute directory of the config file Load read; "" when
	// no file was loaded. It is never read from YAML.
	Dir string `yaml:"-"`
}

// Scopes names the iii-state scopes.
type Scopes struct {
	Skills  string `yaml:"skills"`
	Prompts string `yaml:"prompts"`
}

// Default returns the configuration used when no valid file is loaded.
func Default() Config {
	return Config{
		Scopes:         Scopes{Skills: DefaultSkillsScope, Prompts: DefaultPromptsScope},
		StateTimeoutMS: DefaultStateTimeoutMS,
		Skills:         []string{},
		Prompts:        []string{},
	}
}

// StateTimeout is StateTimeoutMS as a duration.
func (c Config) StateTimeout() time.Duration {
	return time.Duration(c.StateTimeoutMS) * time.Millisecond
}

// GlobBase is the directory relative glob patterns resolve against:
// BaseDir if set (a relative one joined to the config file's directory),
// else the config file's directory, else the current directory (as in the
// reference worker when no config file was loaded). A relative BaseDir
// without a loaded file resolves against the current directory.
func (c Config) GlobBase() string {
	dir := c.Dir
	if dir == "" {
		dir = workingDir()
	}
	switch {
	case c.BaseDir == "":
		return dir
	case filepath.IsAbs(c.BaseDir):
		return filepath.Clean(c.BaseDir)
	default:
		return filepath.Join(dir, c.BaseDir)
	}
}

// workingDir is the current directory, or "." if it cannot be found (it
// was removed), as in the reference.
func workingDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	return wd
}
