package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// writeConfig writes content to dir/name and returns the path.
func writeConfig(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := writeConfig(t, dir, "conf/config.yaml", "scopes: {skills: team-skills}\nskills: [docs/**/*.md]\n")
	cfg, err := Load(path)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	want := with(func(c *Config) {
		c.Scopes.Skills = "team-skills"
		c.Skills = []string{"docs/**/*.md"}
		c.Dir = filepath.Join(dir, "conf")
	})
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("Load (-want +got):\n%s", diff)
	}
}

func TestLoadRelativePathRecordsAbsoluteDir(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, "sub/config.yaml", "{}\n")
	t.Chdir(dir)
	cfg, err := Load("sub/config.yaml")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if want := filepath.Join(dir, "sub"); cfg.Dir != want {
		t.Errorf("Dir = %q, want %q", cfg.Dir, want)
	}
	if want := filepath.Join(dir, "sub"); cfg.GlobBase() != want {
		t.Errorf("GlobBase() = %q, want %q", cfg.GlobBase(), want)
	}
}

func TestLoadFailuresReturnDefaults(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name     string
		path     string
		want     string // with {dir} for the temp dir
		notExist bool
	}{
		{
			name:     "missing file",
			path:     filepath.Join(dir, "missing.yaml"),
			want:     "read config {dir}/missing.yaml: no such file or directory",
			notExist: true,
		},
		{
			name: "a directory",
			path: dir,
			want: "read config {dir}: is a directory",
		},
		{
			name: "invalid YAML",
			path: writeConfig(t, dir, "syntax.yaml", "prompts: [a]\nskills: a: b\n"),
			want: "config {dir}/syntax.yaml: invalid YAML: line 2: mapping values are not allowed in this context",
		},
		{
			name: "binary junk",
			path: writeConfig(t, dir, "junk.yaml", "\x7fELF\x02\x01\x01\x00"),
			want: "config {dir}/junk.yaml: invalid YAML: control characters are not allowed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Load(tt.path)
			if err == nil {
				t.Fatalf("Load succeeded with %+v", cfg)
			}
			if diff := cmp.Diff(tt.want, strings.ReplaceAll(err.Error(), dir, "{dir}")); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if got := errors.Is(err, fs.ErrNotExist); got != tt.notExist {
				t.Errorf("errors.Is(err, fs.ErrNotExist) = %v, want %v", got, tt.notExist)
			}
			if diff := cmp.Diff(Default(), cfg); diff != "" {
				t.Errorf("config on error is not Default, Dir unset (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGlobBase(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, dir, baseDir, want string
	}{
		{name: "no file loaded: the working directory", want: wd},
		{name: "the config file's directory", dir: "/etc/iii", want: "/etc/iii"},
		{name: "absolute base_dir wins", dir: "/etc/iii", baseDir: "/srv/docs/", want: "/srv/docs"},
		{name: "relative base_dir joins the config directory", dir: "/tmp/iii", baseDir: "../docs", want: "/tmp/docs"},
		{name: "relative base_dir without a file joins the working directory", baseDir: "docs", want: filepath.Join(wd, "docs")},
		{name: "absolute base_dir without a file", baseDir: "/srv/docs", want: "/srv/docs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := with(func(c *Config) { c.Dir, c.BaseDir = tt.dir, tt.baseDir })
			if got := cfg.GlobBase(); got != tt.want {
				t.Errorf("GlobBase() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestGlobBaseFromLoadedBaseDir(t *testing.T) {
	dir := t.TempDir()
	path := writeConfig(t, dir, "etc/config.yaml", "base_dir: ../content\n")
	cfg, err := Load(path)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if want := filepath.Join(dir, "content"); cfg.GlobBase() != want {
		t.Errorf("GlobBase() = %q, want %q", cfg.GlobBase(), want)
	}
}

func TestStateTimeout(t *testing.T) {
	tests := []struct {
		ms   int64
		want time.Duration
	}{
		{10000, 10 * time.Second},
		{1, time.Millisecond},
		{MaxStateTimeoutMS, time.Duration(MaxStateTimeoutMS) * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(time.Duration(tt.ms).String(), func(t *testing.T) {
			cfg := with(func(c *Config) { c.StateTimeoutMS = tt.ms })
			if got := cfg.StateTimeout(); got != tt.want {
				t.Errorf("StateTimeout() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestAllowDirs(t *testing.T) {
	dir := t.TempDir()
	path := writeConfig(t, dir, "etc/config.yaml", "base_dir: ../content\nallow_paths: [/srv/shared/, ../vendor, .]\nmax_files: 20\n")
	cfg, err := Load(path)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	want := []string{"/srv/shared", filepath.Join(dir, "vendor"), filepath.Join(dir, "content")}
	if diff := cmp.Diff(want, cfg.AllowDirs()); diff != "" {
		t.Errorf("AllowDirs (-want +got):\n%s", diff)
	}
	if cfg.MaxFiles != 20 {
		t.Errorf("MaxFiles = %d, want 20", cfg.MaxFiles)
	}
	if got := Default().AllowDirs(); len(got) != 0 {
		t.Errorf("Default().AllowDirs() = %v, want none", got)
	}
}

// One bad value keeps its key at the default and the rest of the file
// applies (D66): each problem names the key, its line, the value and what
// is allowed.
func TestLoadBadValueFallsBackPerKey(t *testing.T) {
	dir := t.TempDir()
	path := writeConfig(t, dir, "config.yaml", "scopes:\n  skills: mine\n  prompts: '  '\n"+
		"state_timeout_ms: \"10s\"\nmax_files: -1\nallow_paths: ['  ']\nskills: [\"docs/*.md\"]\npage_size: 5\n"+
		"tools: {max_concurrent: 0, enabled: true}\nfs_poll_ms: 500\nfs_poll_ms: 700\n")
	cfg, err := Load(path)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	want := Default()
	want.Scopes.Skills = "mine"
	want.Skills = []string{"docs/*.md"}
	want.PageSize = 5
	want.Tools.Enabled = true
	want.Dir = dir
	want.UnknownKeys = cfg.UnknownKeys
	want.Problems = []Problem{
		{Key: "state_timeout_ms", Line: 4, Message: "`state_timeout_ms` must be a whole number of milliseconds from 1 to 9223372036854, got str \"10s\""},
		{Key: "fs_poll_ms", Line: 11, Message: "key `fs_poll_ms` is repeated (first at line 10)"},
		{Key: "scopes.prompts", Line: 3, Message: "`scopes.prompts` must name an iii-state scope (a non-blank string), got \"  \""},
		{Key: "max_files", Line: 5, Message: "`max_files` must be a whole number of directory entries from 1 to 2147483647 (default 100000), got -1"},
		{Key: "tools.max_concurrent", Line: 9, Message: "`tools.max_concurrent` must be a whole number of commands from 1 to 64 (default 4), got 0"},
		{Key: "allow_paths", Line: 6, Message: "`allow_paths[0]` must be a directory path (a non-blank string), got \"  \""},
	}
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	if got, want := cfg.Problems[0].String(), "line 4: `state_timeout_ms` must be a whole number of milliseconds from 1 to 9223372036854, got str \"10s\"; `state_timeout_ms` keeps its default"; got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
}

// A roots key whose value cannot be used is as if absent, so skills dev
// still serves the conventional folders (D49).
func TestLoadBadRootsIsAsIfAbsent(t *testing.T) {
	path := writeConfig(t, t.TempDir(), "config.yaml", "roots: ./skills\n")
	cfg, err := Load(path)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if cfg.RootsSet || len(cfg.Roots) != 0 || len(cfg.Problems) != 1 || cfg.Problems[0].Key != "roots" {
		t.Errorf("roots = %v, set %v, problems %v; want none, unset, one for roots", cfg.Roots, cfg.RootsSet, cfg.Problems)
	}
}
