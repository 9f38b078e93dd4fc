package config

import (
	"fmt"
	"slices"
)

// Mode is how a config is served: by the worker under an engine, or by a
// local try-out. It decides the one thing a config leaves open, the roots
// read when the config has no roots key. The commands that only inspect
// files (skills doctor, skills tools) take the mode of the worker they
// stand for, so they look at exactly the files it would serve.
type Mode int

const (
	// ModeWorker is the worker under an engine (`skills`, a managed worker
	// of `iii worker add`): it reads only what its config names, so a
	// config without a roots key serves no roots, as 0.2 did; the
	// skills::roots::* functions then scan upstream's default roots on
	// demand (docs/decisions.md D32, D48). skills doctor and skills tools
	// inspect this mode unless given --dev.
	ModeWorker Mode = iota
	// ModeDev is a local try-out (`skills dev`, `skills mcp --dev`, and
	// skills doctor or skills tools with --dev): a config without a roots
	// key serves ConventionalRoots, and they count as configured
	// (docs/decisions.md D30).
	ModeDev
)

// String is the mode's name, as the docs and logs spell it.
func (m Mode) String() string {
	switch m {
	case ModeWorker:
		return "worker"
	case ModeDev:
		return "dev"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Resolve returns cfg as a command of that mode serves it: the one rule
// for a config without a roots key (docs/decisions.md D30, D32). A config
// with a roots key, even an empty one, is served as written in every
// mode. Resolve never touches the file system: "~/" and relative roots
// are resolved where the roots are read (fsource.New).
func Resolve(cfg Config, mode Mode) Config {
	if cfg.RootsSet {
		return cfg
	}
	switch mode {
	case ModeDev:
		cfg.Roots, cfg.RootsSet, cfg.RootsByMode = slices.Clone(ConventionalRoots), true, true
	case ModeWorker:
		// Nothing beyond the config: no roots served, RootsSet stays
		// false so skills::roots::* keep upstream's defaults (D32).
	}
	return cfg
}
