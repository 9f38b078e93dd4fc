package mcpauth

import (
	"context"
	"testing"

	"github.com/iii-hq/skills-go/internal/mcpauth/oauthtest"
)

// BenchmarkVerify measures the token check alone: a static token among
// ten (SHA-256 and ten constant-time comparisons) and an OAuth JWT
// (ES256 signature and claims, keys cached).
func BenchmarkVerify(b *testing.B) {
	b.Run("static", func(b *testing.B) {
		text := ""
		for i := range 10 {
			text += "t" + string(rune('a'+i)) + " skills:read secret-0123456789abcdef-" + string(rune('a'+i)) + "\n"
		}
		tokens, err := ParseTokens("bench", text, testScopes, "skills:read")
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, ok := tokens.Lookup("secret-0123456789abcdef-j"); !ok {
				b.Fatal("not found")
			}
		}
	})
	b.Run("jwt", func(b *testing.B) {
		as := oauthtest.NewServer()
		defer as.Close()
		j, err := NewJWT(JWTOptions{Issuer: as.URL, JWKSURL: as.JWKSURL()})
		if err != nil {
			b.Fatal(err)
		}
		const aud = "http://127.0.0.1:1/mcp"
		tok := as.Issue(aud, "bench", "skills:read")
		for b.Loop() {
			if _, err := j.Verify(context.Background(), tok, aud); err != nil {
				b.Fatal(err)
			}
		}
	})
}
