package iii

import (
	"fmt"
	"net/url"
	"os"
	"strings"
)

// DefaultURL is the engine address used when neither a flag nor the
// environment names one: the engine's worker port on the loopback interface.
const DefaultURL = "ws://127.0.0.1:49134"

// ResolveURL picks the engine URL: the flag if non-empty, else $III_URL,
// else $III_ENGINE_URL, else DefaultURL. The engine launches registry
// binaries with only the environment variables, so they must be honoured
// when no --url flag is given.
func ResolveURL(flag string) string {
	u, _ := resolveURL(flag)
	return u
}

// resolveURL is ResolveURL that also names where the URL came from, as a
// user would look for it: "--url", "III_URL", "III_ENGINE_URL" or "".
func resolveURL(flag string) (value, source string) {
	if flag != "" {
		return flag, "--url"
	}
	for _, name := range []string{"III_URL", "III_ENGINE_URL"} {
		if v := os.Getenv(name); v != "" {
			return v, name
		}
	}
	return DefaultURL, ""
}

// CheckedURL is ResolveURL followed by CheckURL, once at start: a URL the
// client could never dial is refused before anything connects (instead
// of a retry loop that cannot succeed). The error names the flag or
// environment variable the value came from.
func CheckedURL(flag string) (string, error) {
	value, source := resolveURL(flag)
	if err := CheckURL(value); err != nil {
		if source == "--url" {
			return "", fmt.Errorf("--url %w", err)
		}
		return "", fmt.Errorf("%s=%q: engine URL %w", source, value, err)
	}
	return value, nil
}

// CheckURL reports whether raw is an engine URL the client can dial:
// ws://host[:port][/path] or wss://…. The error quotes raw, says what is
// wrong and, where the intent is plain (an http:// URL, a bare
// host:port), spells the URL that would work.
func CheckURL(raw string) error {
	const allowed = "the engine speaks WebSocket: give ws://host:port (e.g. " + DefaultURL + ") or wss://host:port for TLS"
	u, err := url.Parse(raw)
	switch {
	case err != nil && !strings.Contains(raw, "://"),
		err == nil && u.Scheme != "" && u.Opaque != "" && !strings.Contains(raw, "://"),
		err == nil && u.Scheme == "" && u.Host == "":
		// host:port (url.Parse fails on 127.0.0.1:49134, and reads
		// localhost:49134 as the scheme localhost) or a bare host.
		return fmt.Errorf("%q has no scheme; %s; did you mean ws://%s?", raw, allowed, raw)
	case err != nil:
		return fmt.Errorf("%q is not a URL (%v); %s", raw, unwrapURLError(err), allowed)
	}
	switch strings.ToLower(u.Scheme) {
	case "ws", "wss":
	case "http", "https":
		ws := *u
		ws.Scheme = map[string]string{"http": "ws", "https": "wss"}[strings.ToLower(u.Scheme)]
		return fmt.Errorf("%q is an HTTP URL; %s; did you mean %s?", raw, allowed, ws.String())
	default:
		return fmt.Errorf("%q has the scheme %s://; %s", raw, u.Scheme, allowed)
	}
	if u.Host == "" || u.Hostname() == "" {
		return fmt.Errorf("%q has no host; %s", raw, allowed)
	}
	return nil
}

// unwrapURLError is the reason inside a *url.Error, without the
// operation and the URL it repeats.
func unwrapURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
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
