package config

import (
	"strings"
)

// EnvConfig is the environment variable that names the config file a
// supervisor wrote for this worker. iii compose (0.23 and later) merges a
// container's config (the package's default, then its configuration
// entry, then config_override), writes it, mode 0600, into its own state
// directory (~/.iii/compose/<namespace>/<project>/config/<container>.yaml)
// and passes the path here (docs/deployment.md).
const EnvConfig = "III_CONFIG"

// Origin is where a config file's path came from. It decides what the
// file's relative paths are relative to (Config.GlobBase; docs/decisions.md
// D10, D57) and whether a missing file is a mistake.
type Origin int

const (
	// OriginDefault is the command's default path (./config.yaml), read
	// when neither --config nor $III_CONFIG names a file: its absence only
	// means the defaults.
	OriginDefault Origin = iota
	// OriginFlag is the file --config names.
	OriginFlag
	// OriginEnv is the file $III_CONFIG names: written by a supervisor
	// into a directory of its own, not the operator's.
	OriginEnv
)

// Location is a config file to read and where its path came from.
type Location struct {
	Path   string
	Origin Origin
}

// Locate picks a command's config file, the one rule every command that
// reads the worker's config follows: --config when it was given
// (flagGiven), else $III_CONFIG when it is set and not blank (an empty
// variable is how a shell says unset: III_CONFIG=${X} with X unset), else
// flag, the flag's default (./config.yaml). getenv is os.Getenv outside
// tests.
func Locate(flag string, flagGiven bool, getenv func(string) string) Location {
	if flagGiven {
		return Location{Path: flag, Origin: OriginFlag}
	}
	if p := getenv(EnvConfig); strings.TrimSpace(p) != "" {
		return Location{Path: p, Origin: OriginEnv}
	}
	return Location{Path: flag, Origin: OriginDefault}
}

// Named reports whether something named the file (--config or
// $III_CONFIG): a named file that cannot be read is a mistake to report,
// where a missing default file only means the defaults.
func (l Location) Named() bool { return l.Origin != OriginDefault }

// String names the file for a message: its path, and what named it when
// that was not --config ("/x/skills.yaml (named by $III_CONFIG)").
func (l Location) String() string {
	if l.Origin == OriginEnv {
		return l.Path + " (named by $" + EnvConfig + ")"
	}
	return l.Path
}

// LoadAt is Load for a located file. The Config records the Origin, also
// when Load fails and the defaults are returned, so its paths follow the
// rule for where it came from.
func LoadAt(l Location) (Config, error) {
	cfg, err := Load(l.Path)
	cfg.Origin = l.Origin
	return cfg, err
}
