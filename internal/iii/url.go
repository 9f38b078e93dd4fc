package iii

import (
	"fmt"
	"os"
)

// DefaultURL is the engine address used when neither a flag nor the
// environment names one: the engine's worker port on the loopback interface.
const DefaultURL = "ws://127.0.0.1:49134"

// ResolveURL picks the engine URL: the flag if non-empty, else $III_URL,
// else $III_ENGINE_URL, else DefaultURL. The engine launches registry
// binaries with only the environment variables, so they must be honoured
// when no --url flag is given.
func ResolveURL(flag string) string {
	for _, v := range []string{flag, os.Getenv("III_URL"), os.Getenv("III_ENGINE_URL")} {
		if v != "" {
			return v
		}
	}
	return DefaultURL
}

// defaultName is the worker name reported to the engine when Options.Name
// is empty: $III_WORKER_NAME (set by iii-worker for managed workers, which
// it matches to connections by name), else hostname:pid.
func defaultName() string {
	if n := os.Getenv("III_WORKER_NAME"); n != "" {
		return n
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	return fmt.Sprintf("%s:%d", host, os.Getpid())
}
