# The two commands a newcomer needs:
#   make run    start a local iii engine on 127.0.0.1:49134 (PORT=… for another) with the skills worker attached
#   make test   install what the tests need (the Node SDKs, Debian's redis-server), then run
#               every test (race detector on): unit, BDD, interop with the Node SDK, the
#               engine against a real Redis, each fuzz target's seed corpus;
#               then the large-scope boot, which is too slow for the race detector
# Longer checks, which CI (.ci/run) runs after make test:
#   make fuzz           every fuzz target for $(FUZZTIME) of real fuzzing
#   make release-check  build every release archive and check it as iii worker add would
GO      ?= go
# The version the binary reports. Unset, the binary derives it from what Go
# records, as go install and go run builds do (internal/buildinfo):
# 0.2.5-dev+<commit>[.dirty] in a checkout. Releases set it: make build VERSION=0.2.5
VERSION ?=
LDFLAGS := -s -w $(if $(VERSION),-X github.com/iii-hq/skills-go/internal/buildinfo.Version=$(VERSION))
CONFIG  ?= config.yaml
# The local engine's port for make run: make run PORT=49200
PORT    ?= 49134

.PHONY: run build test test-go large-scope interop-deps redis-deps vet fuzz bench release-check race-loop clean

# The worker is built, then run directly (not through `go run`, which
# exits 1 when the program it runs was interrupted): Ctrl-C stops it
# gracefully and make ends quietly.
run: build
	@exec ./bin/skills dev --config $(CONFIG) --data .skills-data --port $(PORT)

# -buildvcs=auto records the commit, whatever GOFLAGS says, so that a
# checkout's build names it (a tree outside git builds too).
build:
	CGO_ENABLED=0 $(GO) build -buildvcs=auto -ldflags "$(LDFLAGS)" -o bin/skills ./cmd/skills

test: interop-deps redis-deps vet test-go large-scope

interop-deps:
	cd interop && npm ci --no-audit --no-fund --loglevel=error

# The engine's Redis tests start a real redis-server (internal/redistest,
# D71); without one they fail. Installed from Debian's package when
# missing: apt-get as root, sudo otherwise.
redis-deps:
	@if command -v redis-server >/dev/null 2>&1; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server; \
	elif command -v sudo >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then \
		sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server; \
	else \
		echo "make redis-deps: redis-server is not on PATH and cannot be installed here (no apt-get, or neither root nor sudo)."; \
		echo "Install Redis 7 so that redis-server is on PATH, or set SKILLS_NO_REDIS=1 to skip the tests that need it."; \
		exit 1; \
	fi; \
	command -v redis-server >/dev/null 2>&1 || { echo "make redis-deps: installed redis-server, yet it is not on PATH"; exit 1; }

vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...

test-go:
	$(GO) test -race -count=1 ./...

# The one test too slow for the race detector (it skips itself there):
# 100,000 skills of 4 KiB boot the real binary and are served (D22).
large-scope:
	$(GO) test -count=1 -run '^TestLargeScopeBootsAndServes$$' ./bench/

# Each fuzz target runs briefly on top of its seed corpus (which test-go
# already runs as plain tests); scripts/fuzz.sh says how a failure is
# retried (a real crasher fails; the Go fuzz coordinator's deadline race
# does not).
FUZZTIME ?= 10s
fuzz:
	GO=$(GO) FUZZTIME=$(FUZZTIME) ./scripts/fuzz.sh

# The whole suite N times in a row under the race detector; stops at the
# first failure. Used to hunt flakes: make race-loop N=10
N ?= 10
race-loop: interop-deps
	./scripts/race-loop.sh $(N)

bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 6 ./...

release-check:
	./scripts/release-check.sh

clean:
	rm -rf bin dist
