package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// The Streamable HTTP limits' flags are checked before anything starts
// (exit 2, naming the value and what is allowed): each needs --http, the
// bounds are positive, an allowed origin is an origin, and the TLS
// files come together and hold a usable pair.
func TestMCPHTTPLimitFlags(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.pem")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-sessions", "5"}, "--max-sessions is for Streamable HTTP; give --http ADDR too"},
		{[]string{"--allow-origin", "https://app.example"}, "--allow-origin is for Streamable HTTP"},
		{[]string{"--http", "127.0.0.1:0", "--max-sessions", "0"}, "--max-sessions 0, --max-connections 1024: give positive numbers"},
		{[]string{"--http", "127.0.0.1:0", "--max-connections", "-1"}, "--max-connections -1: give positive numbers"},
		{[]string{"--http", "127.0.0.1:0", "--allow-origin", "app.example"}, `allowed origin "app.example" is not an origin: give scheme://host[:port]`},
		{[]string{"--http", "127.0.0.1:0", "--tls-cert", missing}, "TLS needs --tls-cert and --tls-key together"},
		{[]string{"--http", "127.0.0.1:0", "--tls-cert", missing, "--tls-key", missing}, "TLS certificate " + missing + " and key " + missing},
	} {
		code, _, errOut := runCmd(t, t.Context(), append([]string{"mcp", "--url", "ws://127.0.0.1:1"}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("skills mcp %s: exit %d, %q; want exit 2 saying %q", strings.Join(tc.args, " "), code, errOut, tc.want)
		}
	}
}
