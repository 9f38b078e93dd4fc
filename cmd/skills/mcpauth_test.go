package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Authentication flags that cannot be used are refused before anything
// starts (exit 2), naming the flag, the file or the variable and what is
// allowed, never a token.
func TestMCPAuthFlagsRefused(t *testing.T) {
	dir := t.TempDir()
	const secret = "s3cret-0123456789abcdef"
	open := filepath.Join(dir, "open-tokens")
	if err := os.WriteFile(open, []byte("ci skills:read "+secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o644); err != nil { // whatever the umask
		t.Fatal(err)
	}
	t.Setenv("SKILLS_TEST_EMPTY_TOKENS", "")
	t.Setenv("SKILLS_TEST_BAD_TOKENS", "ci skills:write "+secret)
	missing := filepath.Join(dir, "no-such-file")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--auth-tokens", open}, "give --http ADDR too (stdio has no authentication)"},
		{[]string{"--http", "127.0.0.1:0", "--auth-tokens", missing}, "token file " + missing + " does not exist"},
		{[]string{"--http", "127.0.0.1:0", "--auth-tokens", open}, "token file " + open + " has mode 0644"},
		{[]string{"--http", "127.0.0.1:0", "--auth-tokens-env", "SKILLS_TEST_UNSET_TOKENS"}, "--auth-tokens-env SKILLS_TEST_UNSET_TOKENS: the variable is unset or empty"},
		{[]string{"--http", "127.0.0.1:0", "--auth-tokens-env", "SKILLS_TEST_EMPTY_TOKENS"}, "unset or empty"},
		{[]string{"--http", "127.0.0.1:0", "--auth-tokens-env", "SKILLS_TEST_BAD_TOKENS"}, `$SKILLS_TEST_BAD_TOKENS, line 1: token "ci": unknown scope "skills:write"`},
		{[]string{"--http", "127.0.0.1:0", "--oauth-issuer", "https://auth.example"}, "--oauth-issuer https://auth.example needs --oauth-jwks URL"},
		{[]string{"--http", "127.0.0.1:0", "--oauth-jwks", "https://auth.example/jwks"}, "go with --oauth-issuer URL"},
		{[]string{"--http", "0.0.0.0:0", "--oauth-issuer", "https://auth.example", "--oauth-jwks", "https://auth.example/jwks"}, "--http 0.0.0.0:0 needs --oauth-resource URL"},
		{[]string{"--http", ":0", "--oauth-issuer", "https://auth.example", "--oauth-jwks", "https://auth.example/jwks"}, "--http :0 needs --oauth-resource URL"},
		{[]string{"--http", "127.0.0.1:0", "--oauth-issuer", "auth.example", "--oauth-jwks", "https://auth.example/jwks"}, `--oauth-issuer "auth.example": give an https:// URL`},
	} {
		code, _, errOut := runCmd(t, t.Context(), append([]string{"mcp", "--dev"}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("skills mcp --dev %v: exit %d, %q; want exit 2 saying %q", tc.args, code, errOut, tc.want)
		}
		if strings.Contains(errOut, secret) {
			t.Errorf("skills mcp --dev %v quotes a token: %q", tc.args, errOut)
		}
	}
}
