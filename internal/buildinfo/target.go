package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// target, when set at link time, names the triple a build is published
// under where the platform alone cannot tell: the static linux/amd64
// binary also ships as x86_64-unknown-linux-musl.
//
//	go build -ldflags "-X github.com/iii-hq/skills-go/internal/buildinfo.target=x86_64-unknown-linux-musl"
var target string

// Target is the Rust target triple of this binary: the link-time override
// if any, else TargetFor(runtime.GOOS, runtime.GOARCH, the GOARM build
// setting).
func Target() string {
	if target != "" {
		return target
	}
	return TargetFor(runtime.GOOS, runtime.GOARCH, buildSetting("GOARM"))
}

// TargetFor maps a Go platform to the Rust target triple the iii registry
// names release assets by (docs/reference.md#release-artifacts):
//
//	darwin/amd64         x86_64-apple-darwin
//	darwin/arm64         aarch64-apple-darwin
//	linux/amd64          x86_64-unknown-linux-gnu
//	linux/arm64          aarch64-unknown-linux-gnu
//	linux/arm, GOARM=7   armv7-unknown-linux-gnueabihf
//	windows/amd64        x86_64-pc-windows-msvc
//	windows/386          i686-pc-windows-msvc
//	windows/arm64        aarch64-pc-windows-msvc
//
// goarm may carry a float suffix ("7,hardfloat"); an empty goarm means Go's
// default for cross builds, 7. Any other platform, linux/arm with GOARM 5
// or 6 included, maps to "<goarch>-unknown-<goos>" (e.g.
// "riscv64-unknown-linux"): not a real Rust triple, but a stable name that
// no registry asset will be mistaken for.
func TargetFor(goos, goarch, goarm string) string {
	switch goos + "/" + goarch {
	case "darwin/amd64":
		return "x86_64-apple-darwin"
	case "darwin/arm64":
		return "aarch64-apple-darwin"
	case "linux/amd64":
		return "x86_64-unknown-linux-gnu"
	case "linux/arm64":
		return "aarch64-unknown-linux-gnu"
	case "linux/arm":
		if v, _, _ := strings.Cut(goarm, ","); v == "" || v == "7" {
			return "armv7-unknown-linux-gnueabihf"
		}
	case "windows/amd64":
		return "x86_64-pc-windows-msvc"
	case "windows/386":
		return "i686-pc-windows-msvc"
	case "windows/arm64":
		return "aarch64-pc-windows-msvc"
	}
	return goarch + "-unknown-" + goos
}

// buildSetting returns a setting recorded in the binary's build info, or "".
func buildSetting(key string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, s := range bi.Settings {
		if s.Key == key {
			return s.Value
		}
	}
	return ""
}
