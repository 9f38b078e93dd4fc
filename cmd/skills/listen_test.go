package main

import (
	"strings"
	"testing"
)

// An --http address beyond loopback is refused before anything starts
// (exit 2, saying why and how to configure authentication) when skills
// mcp has no authentication; loopback addresses and localhost are served,
// any address is once authentication is configured, and
// --allow-unauthenticated lets an operator who knows take the risk.
func TestMCPListensOnLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:8765", ":8765", "[::]:8765", "192.168.1.10:8765", "example.com:8765"} {
		code, _, errOut := runCmd(t, t.Context(), "mcp", "--dev", "--http", addr)
		if code != 2 || !strings.Contains(errOut, "--http "+addr+" listens on") ||
			!strings.Contains(errOut, "without authentication") || !strings.Contains(errOut, "--auth-tokens FILE") || !strings.Contains(errOut, "--oauth-issuer URL --oauth-jwks URL") || !strings.Contains(errOut, "--allow-unauthenticated") {
			t.Errorf("--http %s: exit %d, %q; want exit 2 refusing an address beyond loopback", addr, code, errOut)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0", "localhost:0", "127.0.0.2:0"} {
		if err := checkListen(addr, false, false); err != nil {
			t.Errorf("checkListen(%q) = %v; want a loopback address accepted", addr, err)
		}
	}
	if err := checkListen("0.0.0.0:0", false, true); err != nil {
		t.Errorf("checkListen(0.0.0.0:0, allowed) = %v; want it accepted", err)
	}
	for _, addr := range []string{"0.0.0.0:8765", ":8765", "[::]:8765", "192.168.1.10:8765"} {
		if err := checkListen(addr, true, false); err != nil {
			t.Errorf("checkListen(%q, authenticated) = %v; want it accepted", addr, err)
		}
	}
	code, _, errOut := runCmd(t, t.Context(), "mcp", "--dev", "--http", "nonsense")
	if code != 2 || !strings.Contains(errOut, `--http "nonsense"`) {
		t.Errorf("--http nonsense: exit %d, %q; want a usage error naming the value", code, errOut)
	}
}
