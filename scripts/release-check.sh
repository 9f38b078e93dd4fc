#!/usr/bin/env bash
# release-check.sh builds every release archive with goreleaser in snapshot
# mode (nothing is published) and checks each one the way `iii worker add`
# consumes it: the archive is named skills-<rust-triple>.tar.gz (.zip on
# Windows), holds the binary `skills` (`skills.exe`) at its root, has a
# skills-<triple>.sha256 beside it whose first token is the archive's digest,
# and the binary was built for that triple with the version stamped in. The
# binaries this machine can run are also started with --version and
# --manifest, and iii.worker.yaml is checked against what they say: its
# name, bin and description, and a scripts.start for iii compose.
#
# Usage: scripts/release-check.sh
#
# Environment:
#   GORELEASER_VERSION  goreleaser v2 release to install (default below)
#   GORELEASER_BIN_DIR  where `go install` puts goreleaser; reused across runs
#                       (default: $HOME/.cache/skills-go/goreleaser-<version>)
#   KEEP_DIST=1         keep the temporary dist directory and print its path
#
# Cost on a 2-core machine, measured: 20-35 s when goreleaser is installed
# and the Go build cache is warm; about 30 s more to install goreleaser from
# a warm build cache. From a cold build cache, building goreleaser takes
# about 7 CPU-minutes and the nine cross builds about 6, so keep
# $(go env GOCACHE), $(go env GOMODCACHE) and GORELEASER_BIN_DIR between runs.
set -euo pipefail

# v2.16.0 is the newest goreleaser whose go.mod accepts Go 1.26 and whose
# dependencies all come from the Go module proxy (v2.17.0 needs a module the
# proxy refuses; v2.18 needs Go 1.27).
GORELEASER_VERSION="${GORELEASER_VERSION:-v2.16.0}"
GORELEASER_BIN_DIR="${GORELEASER_BIN_DIR:-${HOME}/.cache/skills-go/goreleaser-${GORELEASER_VERSION}}"

# One line per release archive: GOOS GOARCH GOARM rust-triple archive-ext.
# The musl archive is the static linux/amd64 build under the musl name; the
# buildinfo.target ldflag makes it report that name.
TARGETS="
darwin  amd64 - x86_64-apple-darwin           tar.gz
darwin  arm64 - aarch64-apple-darwin          tar.gz
linux   amd64 - x86_64-unknown-linux-gnu      tar.gz
linux   amd64 - x86_64-unknown-linux-musl     tar.gz
linux   arm64 - aarch64-unknown-linux-gnu     tar.gz
linux   arm   7 armv7-unknown-linux-gnueabihf tar.gz
windows amd64 - x86_64-pc-windows-msvc        zip
windows 386   - i686-pc-windows-msvc          zip
windows arm64 - aarch64-pc-windows-msvc       zip
"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

failures=0
fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}
die() {
	echo "release-check: $*" >&2
	exit 1
}

# Zip handling with unzip when the machine has it, else Python's zipfile.
zip_list() {
	if command -v unzip >/dev/null 2>&1; then
		unzip -Z1 "$1"
	else
		python3 -c 'import sys, zipfile; print("\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))' "$1"
	fi
}
zip_extract() {
	if command -v unzip >/dev/null 2>&1; then
		unzip -q -o "$1" "$2" -d "$3"
	else
		python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extract(sys.argv[2], sys.argv[3])' "$1" "$2" "$3"
	fi
}

for tool in go git tar sha256sum; do
	command -v "$tool" >/dev/null || die "$tool is required but not on PATH"
done

work="$(mktemp -d "${TMPDIR:-/tmp}/skills-release-check.XXXXXX")"
cleanup() {
	if [ "${KEEP_DIST:-}" = 1 ]; then
		echo "kept $work"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT

start=$SECONDS
phase() {
	echo "==> $* (t+$((SECONDS - start))s)"
}

# --- 1. goreleaser, pinned, installed with go install ---------------------
# Building goreleaser from source costs several CPU-minutes with a cold Go
# build cache, so an installed copy of the pinned version is reused: the one
# in GORELEASER_BIN_DIR, else one on PATH.
is_pinned() {
	[ -x "$1" ] && "$1" --version 2>/dev/null | grep -q "GitVersion: *${GORELEASER_VERSION}\$"
}
goreleaser="$GORELEASER_BIN_DIR/goreleaser"
if is_pinned "$goreleaser"; then
	phase "goreleaser $GORELEASER_VERSION already in $GORELEASER_BIN_DIR"
elif on_path="$(command -v goreleaser)" && is_pinned "$on_path"; then
	goreleaser="$on_path"
	phase "goreleaser $GORELEASER_VERSION found at $goreleaser"
else
	phase "installing goreleaser $GORELEASER_VERSION into $GORELEASER_BIN_DIR"
	mkdir -p "$GORELEASER_BIN_DIR"
	GOBIN="$GORELEASER_BIN_DIR" go install "github.com/goreleaser/goreleaser/v2@${GORELEASER_VERSION}" ||
		die "go install goreleaser $GORELEASER_VERSION failed"
fi

# --- 2. config check and snapshot build -----------------------------------
phase "goreleaser check"
"$goreleaser" check --config .goreleaser.yaml

# dist is config-only in goreleaser, so build from a copy of the config that
# points dist at the temp dir (the repo's config must not set dist itself).
dist="$work/dist"
{
	cat .goreleaser.yaml
	printf '\ndist: %s\n' "$dist"
} >"$work/goreleaser.yaml"

phase "goreleaser release --snapshot (all targets)"
"$goreleaser" release --snapshot --clean --skip=publish --config "$work/goreleaser.yaml" >"$work/goreleaser.log" 2>&1 || {
	tail -n 60 "$work/goreleaser.log" >&2
	die "snapshot build failed (last 60 lines of its log above; KEEP_DIST=1 keeps the whole log)"
}

version="$(sed -n 's/.*"version":"\([^"]*\)".*/\1/p' "$dist/metadata.json")"
[ -n "$version" ] || die "no version in $dist/metadata.json"
echo "snapshot version: $version"

# --- 3. every archive -----------------------------------------------------
phase "checking archives"
host="$(go env GOHOSTOS)/$(go env GOHOSTARCH)"
info=""
# setting prints a build setting (GOOS, GOARM, ...) from $info, the output
# of `go version -m` for the binary being checked.
setting() {
	printf '%s\n' "$info" | awk -v k="$1" '$1 == "build" && index($2, k "=") == 1 { print substr($2, length(k) + 2); exit }'
}
expected=""
ran=0
count=0
host_manifest=""

while read -r goos goarch goarm triple ext; do
	[ -n "$goos" ] || continue
	count=$((count + 1))
	name="skills-$triple"
	archive="$dist/$name.$ext"
	sumfile="$dist/$name.sha256"
	bin="skills"
	[ "$goos" = windows ] && bin="skills.exe"
	expected="$expected $name.$ext $name.sha256"

	if [ ! -f "$archive" ]; then
		fail "$name.$ext: missing"
		continue
	fi

	# The installer extracts the entry whose file name is the worker name, so
	# the binary must sit at the root, not under a directory.
	if [ "$ext" = zip ]; then
		entries="$(zip_list "$archive")"
	else
		entries="$(tar -tzf "$archive")"
	fi
	if ! printf '%s\n' "$entries" | grep -qxE "(\./)?$bin"; then
		fail "$name.$ext: no $bin at the archive root (entries: $(printf '%s' "$entries" | tr '\n' ' '))"
		continue
	fi
	others="$(printf '%s\n' "$entries" | grep -vxE "(\./)?$bin" || true)"
	[ -z "$others" ] || echo "note: $name.$ext also holds: $(printf '%s' "$others" | tr '\n' ' ')"

	if [ ! -f "$sumfile" ]; then
		fail "$name.sha256: missing"
	else
		want="$(awk '{print $1; exit}' "$sumfile")"
		got="$(sha256sum "$archive" | awk '{print $1}')"
		[ "$want" = "$got" ] || fail "$name.sha256: says $want, archive digest is $got"
	fi

	out="$work/bin/$triple"
	mkdir -p "$out"
	if [ "$ext" = zip ]; then
		zip_extract "$archive" "$bin" "$out"
	else
		tar -xzf "$archive" -C "$out"
	fi
	exe="$out/$bin"

	# Build settings are embedded in every Go binary, whatever its platform.
	info="$(go version -m "$exe")" || {
		fail "$name: go version -m cannot read $bin"
		continue
	}
	[ "$(setting GOOS)" = "$goos" ] || fail "$name: built for GOOS=$(setting GOOS), want $goos"
	[ "$(setting GOARCH)" = "$goarch" ] || fail "$name: built for GOARCH=$(setting GOARCH), want $goarch"
	[ "$goarm" = - ] || [ "$(setting GOARM)" = "$goarm" ] || fail "$name: built with GOARM=$(setting GOARM), want $goarm"
	[ "$(setting CGO_ENABLED)" = 0 ] || fail "$name: CGO_ENABLED=$(setting CGO_ENABLED), want 0 (static)"
	# -trimpath keeps -ldflags out of the build info, so look for the
	# stamped version string in the binary itself.
	grep -qaF "$version" "$exe" || fail "$name: version $version is not stamped into $bin"

	# Run what this machine can run.
	[ "$goos/$goarch" = "$host" ] || continue
	ran=$((ran + 1))
	if ! v="$("$exe" --version 2>&1)"; then
		fail "$name: $bin --version exited non-zero: $v"
	elif ! printf '%s' "$v" | grep -qF "$version"; then
		fail "$name: $bin --version printed '$v', want it to name $version"
	fi
	if ! m="$("$exe" --manifest 2>&1)"; then
		fail "$name: $bin --manifest exited non-zero: $m"
		continue
	fi
	compact="$(printf '%s' "$m" | tr -d '[:space:]')"
	host_manifest="$compact"
	case "$compact" in *'"name":"skills"'*) ;; *) fail "$name: --manifest lacks \"name\": \"skills\"" ;; esac
	case "$compact" in *"\"version\":\"$version\""*) ;; *) fail "$name: --manifest lacks \"version\": \"$version\"" ;; esac
	case "$compact" in
	*"\"supported_targets\":[\"$triple\"]"*) ;;
	*) fail "$name: --manifest supported_targets is not [\"$triple\"]: $m" ;;
	esac
done <<EOF
$TARGETS
EOF

# Nothing published that the registry does not expect.
for f in "$dist"/*.tar.gz "$dist"/*.zip "$dist"/*.sha256; do
	[ -e "$f" ] || continue
	case " $expected " in
	*" $(basename "$f") "*) ;;
	*) fail "unexpected release file $(basename "$f")" ;;
	esac
done

[ "$ran" -gt 0 ] || echo "note: no binary built for this machine ($host) could be run; --version/--manifest not checked"

# --- 4. iii.worker.yaml describes these binaries --------------------------
# The registry and `iii worker add` read name, bin and description; iii
# compose (0.23+) starts a path:// checkout with scripts.start, which builds
# and runs bin/<bin>. They must agree with the archives' entry and with what
# the binary says of itself.
phase "checking iii.worker.yaml"
wname="$(sed -n 's/^name: *//p' iii.worker.yaml)"
wbin="$(sed -n 's/^bin: *//p' iii.worker.yaml)"
wdesc="$(sed -n 's/^description: *//p' iii.worker.yaml)"
[ "$wname" = skills ] || fail "iii.worker.yaml: name is '$wname', want skills"
[ "$wbin" = skills ] || fail "iii.worker.yaml: bin is '$wbin', want skills, the binary in every archive"
grep -q '^  start: ' iii.worker.yaml || fail "iii.worker.yaml: no scripts.start; iii compose cannot start a path:// checkout without it"
if [ -n "$host_manifest" ]; then
	case "$host_manifest" in
	*"\"name\":\"$wname\""*) ;;
	*) fail "iii.worker.yaml: name '$wname' is not the --manifest name" ;;
	esac
	case "$host_manifest" in
	*"\"description\":\"$(printf '%s' "$wdesc" | tr -d '[:space:]')\""*) ;;
	*) fail "iii.worker.yaml: description differs from the binary's --manifest description" ;;
	esac
fi

phase "done"
if [ "$failures" -gt 0 ]; then
	echo "release-check: $failures problem(s)" >&2
	exit 1
fi
echo "release-check: $count archives and their checksums OK ($((SECONDS - start))s)"
