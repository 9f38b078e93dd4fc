package main

import (
	"net"
	"net/netip"
	"os"
	"strings"

	"github.com/spf13/pflag"
	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/mcpauth"
	"github.com/iii-hq/skills-go/internal/mcpserver"
)

// authFlags are skills mcp's authentication flags (docs/mcp.md,
// "Authentication").
type authFlags struct {
	tokensFile, tokensEnv  string
	issuer, jwks, resource string
}

func registerAuthFlags(fs *pflag.FlagSet) *authFlags {
	a := &authFlags{}
	fs.StringVar(&a.tokensFile, "auth-tokens", "", "with --http: accept the bearer tokens in `FILE` (lines NAME SCOPE[,SCOPE] TOKEN; mode 0600)")
	fs.StringVar(&a.tokensEnv, "auth-tokens-env", "", "with --http: accept the bearer tokens in the environment variable `VAR` (same lines, or separated by ';')")
	fs.StringVar(&a.issuer, "oauth-issuer", "", "with --http: accept OAuth access tokens (JWTs) of this authorization server (its issuer `URL`)")
	fs.StringVar(&a.jwks, "oauth-jwks", "", "with --oauth-issuer: the `URL` of the authorization server's signing keys (JWKS)")
	fs.StringVar(&a.resource, "oauth-resource", "", "with --oauth-issuer: this server's resource `URL`, the audience tokens must name (default: the endpoint, http://ADDR/mcp)")
	return a
}

// given reports whether any authentication flag was given.
func (a *authFlags) given() bool {
	return a.tokensFile != "" || a.tokensEnv != "" || a.issuer != "" || a.jwks != "" || a.resource != ""
}

// config checks the flags and reads the tokens: nil when none was given.
// Errors name the flag, the file or the variable, never a token.
func (a *authFlags) config(httpAddr string, log *zap.Logger) (*mcpauth.Config, error) {
	if !a.given() {
		return nil, nil
	}
	if httpAddr == "" {
		return nil, usagef("skills mcp: --auth-tokens, --auth-tokens-env and --oauth-* check bearer tokens over HTTP; give --http ADDR too (stdio has no authentication)")
	}
	cfg := &mcpauth.Config{Required: mcpserver.ScopeRead, Scopes: mcpserver.Scopes, Resource: a.resource, Log: log.Named("auth")}
	if a.tokensFile != "" {
		t, err := mcpauth.ReadTokenFile(a.tokensFile, mcpserver.Scopes, mcpserver.ScopeRead)
		if err != nil {
			return nil, usagef("skills mcp: --auth-tokens: %v", err)
		}
		cfg.Tokens = t
	}
	if a.tokensEnv != "" {
		text, ok := os.LookupEnv(a.tokensEnv)
		if !ok || strings.TrimSpace(text) == "" {
			return nil, usagef("skills mcp: --auth-tokens-env %s: the variable is unset or empty; set it to lines NAME SCOPE[,SCOPE] TOKEN (or separated by ';')", a.tokensEnv)
		}
		t, err := mcpauth.ParseTokens("$"+a.tokensEnv, strings.ReplaceAll(text, ";", "\n"), mcpserver.Scopes, mcpserver.ScopeRead)
		if err != nil {
			return nil, usagef("skills mcp: --auth-tokens-env: %v", err)
		}
		if cfg.Tokens, err = cfg.Tokens.Merge(t); err != nil {
			return nil, usagef("skills mcp: --auth-tokens and --auth-tokens-env: %v", err)
		}
	}
	switch {
	case a.issuer == "" && (a.jwks != "" || a.resource != ""):
		return nil, usagef("skills mcp: --oauth-jwks and --oauth-resource go with --oauth-issuer URL, the authorization server whose tokens to accept")
	case a.issuer != "" && a.jwks == "":
		return nil, usagef("skills mcp: --oauth-issuer %s needs --oauth-jwks URL, where its signing keys are (its metadata's jwks_uri)", a.issuer)
	case a.issuer != "":
		for flag, u := range map[string]string{"--oauth-issuer": a.issuer, "--oauth-jwks": a.jwks, "--oauth-resource": a.resource} {
			if u != "" && !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
				return nil, usagef("skills mcp: %s %q: give an https:// URL (http:// for loopback)", flag, u)
			}
		}
		if a.resource == "" && unspecifiedHost(httpAddr) {
			return nil, usagef("skills mcp: --oauth-issuer with --http %s needs --oauth-resource URL, the URL clients reach this server at "+
				"(e.g. https://skills.example.com/mcp): tokens must name it as their audience, and http://%s/mcp names no host a client can reach", httpAddr, httpAddr)
		}
		j, err := mcpauth.NewJWT(mcpauth.JWTOptions{Issuer: a.issuer, JWKSURL: a.jwks})
		if err != nil {
			return nil, usagef("skills mcp: %v", err)
		}
		cfg.JWT = j
	}
	fields := []zap.Field{zap.Strings("scopes", mcpserver.Scopes)}
	if cfg.Tokens != nil {
		fields = append(fields, zap.Int("static_tokens", cfg.Tokens.Len()))
	}
	if cfg.JWT != nil {
		fields = append(fields, zap.String("oauth_issuer", a.issuer))
	}
	log.Info("every request over HTTP needs a bearer token", fields...)
	return cfg, nil
}

// unspecifiedHost reports whether addr listens on every interface (an
// empty host, 0.0.0.0, [::]): its URL is no address a client can use.
func unspecifiedHost(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false // checkListen names the problem
	}
	ip, err := netip.ParseAddr(host)
	return host == "" || err == nil && ip.IsUnspecified()
}
