package config

import (
	"errors"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLocate(t *testing.T) {
	tests := []struct {
		name      string
		flag      string
		flagGiven bool
		env       string
		want      Location
	}{
		{"--config wins over $III_CONFIG", "/etc/skills.yaml", true, "/state/skills.yaml",
			Location{Path: "/etc/skills.yaml", Origin: OriginFlag}},
		{"--config given with its default value still counts as named", "./config.yaml", true, "/state/skills.yaml",
			Location{Path: "./config.yaml", Origin: OriginFlag}},
		{"$III_CONFIG without --config", "./config.yaml", false, "/state/skills.yaml",
			Location{Path: "/state/skills.yaml", Origin: OriginEnv}},
		{"neither: the flag's default", "./config.yaml", false, "",
			Location{Path: "./config.yaml", Origin: OriginDefault}},
		{"a blank $III_CONFIG is unset", "config.yaml", false, "  \t",
			Location{Path: "config.yaml", Origin: OriginDefault}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(name string) string {
				if name != EnvConfig {
					t.Errorf("Locate read $%s, want only $%s", name, EnvConfig)
				}
				return tt.env
			}
			got := Locate(tt.flag, tt.flagGiven, getenv)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Locate (-want +got):\n%s", diff)
			}
			if named := tt.want.Origin != OriginDefault; got.Named() != named {
				t.Errorf("Named() = %v, want %v", got.Named(), named)
			}
		})
	}
}

func TestLocationString(t *testing.T) {
	for _, tt := range []struct {
		loc  Location
		want string
	}{
		{Location{Path: "/s/skills.yaml", Origin: OriginEnv}, "/s/skills.yaml (named by $III_CONFIG)"},
		{Location{Path: "x.yaml", Origin: OriginFlag}, "x.yaml"},
		{Location{Path: "./config.yaml", Origin: OriginDefault}, "./config.yaml"},
	} {
		if got := tt.loc.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q", tt.loc, got, tt.want)
		}
	}
}

// LoadAt records where the file came from, whether it loaded or not.
func TestLoadAtRecordsOrigin(t *testing.T) {
	path := writeConfig(t, t.TempDir(), "skills.yaml", "skills: [docs/*.md]\n")
	cfg, err := LoadAt(Location{Path: path, Origin: OriginEnv})
	if err != nil || cfg.Origin != OriginEnv || cfg.Dir != filepath.Dir(path) {
		t.Errorf("LoadAt = Origin %v, Dir %q, %v; want OriginEnv, %q, nil", cfg.Origin, cfg.Dir, err, filepath.Dir(path))
	}
	missing := filepath.Join(t.TempDir(), "none.yaml")
	cfg, err = LoadAt(Location{Path: missing, Origin: OriginEnv})
	if !errors.Is(err, fs.ErrNotExist) || cfg.Origin != OriginEnv || cfg.Dir != "" {
		t.Errorf("LoadAt(missing) = Origin %v, Dir %q, %v; want the defaults from OriginEnv and a not-exist error", cfg.Origin, cfg.Dir, err)
	}
}

// The one rule of D10 and D57: a config the operator keeps anchors its
// relative paths (and tools.lock) to its own directory; one a supervisor
// wrote ($III_CONFIG) to the working directory, as does no config.
func TestRelativePathsFollowTheOrigin(t *testing.T) {
	work := t.TempDir()
	t.Chdir(work)
	state := t.TempDir() // where a supervisor keeps the file
	tests := []struct {
		name     string
		origin   Origin
		dir      string
		baseDir  string
		wantBase string
		wantLock string
	}{
		{"--config: the file's directory", OriginFlag, state, "", state, filepath.Join(state, "tools.lock")},
		{"./config.yaml: the file's directory", OriginDefault, state, "", state, filepath.Join(state, "tools.lock")},
		{"$III_CONFIG: the working directory", OriginEnv, state, "", work, filepath.Join(work, "tools.lock")},
		{"$III_CONFIG, relative base_dir: under the working directory", OriginEnv, state, "content", filepath.Join(work, "content"), filepath.Join(work, "tools.lock")},
		{"--config, relative base_dir: under the file's directory", OriginFlag, state, "content", filepath.Join(state, "content"), filepath.Join(state, "tools.lock")},
		{"$III_CONFIG, absolute base_dir", OriginEnv, state, "/srv/skills", "/srv/skills", filepath.Join(work, "tools.lock")},
		{"no file loaded: the working directory", OriginDefault, "", "", work, filepath.Join(work, "tools.lock")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Default()
			cfg.Origin, cfg.Dir, cfg.BaseDir = tt.origin, tt.dir, tt.baseDir
			cfg.AllowPaths = []string{"shared"}
			cfg.Tools.Workdir = "tmp"
			if got := cfg.GlobBase(); got != tt.wantBase {
				t.Errorf("GlobBase() = %q, want %q", got, tt.wantBase)
			}
			if got := cfg.LockPath(); got != tt.wantLock {
				t.Errorf("LockPath() = %q, want %q", got, tt.wantLock)
			}
			if got, want := cfg.AllowDirs(), []string{filepath.Join(tt.wantBase, "shared")}; !cmp.Equal(got, want) {
				t.Errorf("AllowDirs() = %q, want %q", got, want)
			}
			if got, want := cfg.ToolsWorkdir(), filepath.Join(tt.wantBase, "tmp"); got != want {
				t.Errorf("ToolsWorkdir() = %q, want %q", got, want)
			}
		})
	}
}
