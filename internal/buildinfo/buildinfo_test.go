package buildinfo

import (
	"encoding/json"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTargetFor(t *testing.T) {
	tests := []struct {
		goos, goarch, goarm, want string
	}{
		{"darwin", "amd64", "", "x86_64-apple-darwin"},
		{"darwin", "arm64", "", "aarch64-apple-darwin"},
		{"linux", "amd64", "", "x86_64-unknown-linux-gnu"},
		{"linux", "arm64", "", "aarch64-unknown-linux-gnu"},
		{"linux", "arm", "7", "armv7-unknown-linux-gnueabihf"},
		{"linux", "arm", "7,hardfloat", "armv7-unknown-linux-gnueabihf"},
		{"linux", "arm", "", "armv7-unknown-linux-gnueabihf"},
		{"linux", "arm", "6", "arm-unknown-linux"},
		{"linux", "arm", "5", "arm-unknown-linux"},
		{"windows", "amd64", "", "x86_64-pc-windows-msvc"},
		{"windows", "386", "", "i686-pc-windows-msvc"},
		{"windows", "arm64", "", "aarch64-pc-windows-msvc"},
		{"linux", "riscv64", "", "riscv64-unknown-linux"},
		{"freebsd", "amd64", "", "amd64-unknown-freebsd"},
		{"linux", "386", "", "386-unknown-linux"},
	}
	for _, tt := range tests {
		t.Run(tt.goos+"/"+tt.goarch+"/"+tt.goarm, func(t *testing.T) {
			if got := TargetFor(tt.goos, tt.goarch, tt.goarm); got != tt.want {
				t.Errorf("TargetFor(%q, %q, %q) = %q, want %q", tt.goos, tt.goarch, tt.goarm, got, tt.want)
			}
		})
	}
}

func TestTargetIsThisPlatform(t *testing.T) {
	if got, want := Target(), TargetFor(runtime.GOOS, runtime.GOARCH, buildSetting("GOARM")); got != want {
		t.Errorf("Target() = %q, want %q", got, want)
	}
	if runtime.GOOS == "linux" && runtime.GOARCH == "amd64" && Target() != "x86_64-unknown-linux-gnu" {
		t.Errorf("Target() = %q on linux/amd64", Target())
	}
}

// referenceManifest is docs/reference.md#manifest for a v0.2.4 build on
// x86-64 Linux, byte for byte, plus the trailing newline.
const referenceManifest = `{
  "name": "skills",
  "version": "0.2.4",
  "description": "Agentic content registry worker. Hosts skills + prompts + the iii:// resource resolver that the mcp worker serves to harnesses.",
  "default_config": {
    "prompts": [],
    "scopes": {
      "prompts": "prompts",
      "skills": "skills"
    },
    "skills": [],
    "state_timeout_ms": 10000
  },
  "supported_targets": [
    "x86_64-unknown-linux-gnu"
  ]
}
`

func TestManifestJSON(t *testing.T) {
	m := NewManifest()
	m.Version = "0.2.4"
	m.SupportedTargets = []string{"x86_64-unknown-linux-gnu"}
	if diff := cmp.Diff(referenceManifest, string(m.JSON())); diff != "" {
		t.Errorf("manifest JSON (-want +got):\n%s", diff)
	}
}

func TestNewManifestDescribesThisBinary(t *testing.T) {
	if diff := cmp.Diff(manifestOf(Version), NewManifest()); diff != "" {
		t.Errorf("NewManifest is not the manifest of Version %q (-want +got):\n%s", Version, diff)
	}

	var got map[string]any
	// A release build, as -ldflags -X sets Version.
	if err := json.Unmarshal(manifestOf("9.9.9").JSON(), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"name":        "skills",
		"version":     "9.9.9",
		"description": Description,
		"default_config": map[string]any{
			"prompts":          []any{},
			"scopes":           map[string]any{"prompts": "prompts", "skills": "skills"},
			"skills":           []any{},
			"state_timeout_ms": float64(10000),
		},
		"supported_targets": []any{Target()},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("manifest (-want +got):\n%s", diff)
	}
}

func TestManifestJSONPrintsNilListsAsEmpty(t *testing.T) {
	got := string(Manifest{Name: "x"}.JSON())
	want := `{
  "name": "x",
  "version": "",
  "description": "",
  "default_config": {
    "prompts": [],
    "scopes": {
      "prompts": "",
      "skills": ""
    },
    "skills": [],
    "state_timeout_ms": 0
  },
  "supported_targets": []
}
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("manifest JSON (-want +got):\n%s", diff)
	}
}

// One rule gives the version of a binary whose -ldflags did not set one.
func TestVersionOf(t *testing.T) {
	const rev = "3a63049acf01861cd7175359c79bcccb81752b86"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"no build information", nil, DevVersion},
		{"go install …@v0.2.5", &debug.BuildInfo{Main: debug.Module{Version: "v0.2.5"}}, "0.2.5"},
		{"go build at a tag", &debug.BuildInfo{Main: debug.Module{Version: "v0.2.5"}, Settings: vcs("false")}, "0.2.5"},
		{"go build at a tag, with changes", &debug.BuildInfo{Main: debug.Module{Version: "v0.2.5+dirty"}, Settings: vcs("true")}, "0.2.5+dirty"},
		{"go build after a tag", &debug.BuildInfo{Main: debug.Module{Version: "v0.2.6-0.20261126042438-3a63049acf01"}, Settings: vcs("false")}, DevVersion + "+3a63049acf01"},
		{"go build, no tag, with changes", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261126042438-3a63049acf01+dirty"}, Settings: vcs("true")}, DevVersion + "+3a63049acf01.dirty"},
		{"an older Go: (devel) with a VCS stamp", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("true")}, DevVersion + "+3a63049acf01.dirty"},
		{"go run", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, DevVersion},
	}
	for _, tt := range tests {
		if got := versionOf(tt.bi); got != tt.want {
			t.Errorf("%s: versionOf = %q, want %q", tt.name, got, tt.want)
		}
	}
	// This test binary was built without -X: Version follows the rule.
	bi, _ := debug.ReadBuildInfo()
	if want := versionOf(bi); Version != want {
		t.Errorf("Version = %q, want %q", Version, want)
	}
}
