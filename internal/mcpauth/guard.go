package mcpauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"go.uber.org/zap"
)

// wellKnownPRM is where Protected Resource Metadata is served (RFC 9728
// §3), bare and followed by the resource's path.
const wellKnownPRM = "/.well-known/oauth-protected-resource"

// Config says how requests prove who they are: static tokens, OAuth JWTs,
// or both (a token is first looked up among the static ones). With
// neither, there is nothing to guard, and Guard is not used.
type Config struct {
	// Tokens are the static tokens; nil for none.
	Tokens *Tokens
	// JWT checks OAuth access tokens; nil for none. With it, Protected
	// Resource Metadata is served and named on every 401.
	JWT *JWT
	// Resource is this server's resource URL as its clients reach it (the
	// MCP endpoint's URL, https:// behind a proxy that terminates TLS):
	// OAuth tokens must name it as their audience, and the metadata names
	// it. Empty: the endpoint's URL Guard is given.
	Resource string
	// Required is the scope every request needs (the scope of reading).
	Required string
	// Scopes are every scope the server knows, for the metadata.
	Scopes []string
	// Log receives one line per rejected request kind that is the
	// server's fault (keys that cannot be fetched); rejected clients are
	// logged at debug, by the token's name when it has one, never by the
	// token.
	Log *zap.Logger
}

// Enabled reports whether c asks for any authentication.
func (c *Config) Enabled() bool { return c != nil && (c.Tokens != nil || c.JWT != nil) }

// Guard wraps next, the MCP endpoint, so that every request carries a
// valid bearer token with the Required scope before next sees it: the
// token's info then reaches the MCP server's handlers
// (auth.TokenInfoFromContext, and so mcp.RequestExtra.TokenInfo). A
// request without one is refused on its headers alone: 401 (no token, or
// not a valid one), 403 (a valid token without the Required scope) or 503
// (the authorization server's keys cannot be fetched), with a
// WWW-Authenticate challenge (RFC 6750 §3) that, under OAuth, names the
// Protected Resource Metadata. Its body is never read, no session is
// made, and the connection is closed after the answer, so a flood of them
// costs a header each. endpoint is the MCP endpoint's URL, the resource
// URL unless Resource says otherwise; with JWT, the resource's metadata
// is served at /.well-known/oauth-protected-resource and at that path
// followed by the resource's path.
func (c *Config) Guard(next http.Handler, endpoint string) http.Handler {
	log := c.Log
	if log == nil {
		log = zap.NewNop()
	}
	resource := c.Resource
	if resource == "" {
		resource = endpoint
	}
	g := &guard{cfg: c, log: log, resource: resource,
		pass: auth.RequireBearerToken(checked, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true, ClockSkew: clockSkew})(next)}
	if c.JWT == nil {
		return g
	}
	metaURL, metaPath := metadataURL(resource)
	g.metadataURL = metaURL
	prm := auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:               resource,
		AuthorizationServers:   []string{c.JWT.Issuer()},
		ScopesSupported:        c.Scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "skills mcp",
	})
	mux := http.NewServeMux()
	mux.Handle(wellKnownPRM, prm)
	if metaPath != wellKnownPRM {
		mux.Handle(metaPath, prm)
	}
	mux.Handle("/", g)
	return mux
}

// metadataURL is the URL and path of resource's Protected Resource
// Metadata: the well-known path inserted between host and path (RFC 9728
// §3.1).
func metadataURL(resource string) (string, string) {
	u, err := url.Parse(resource)
	if err != nil || u.Host == "" {
		return wellKnownPRM, wellKnownPRM
	}
	path := wellKnownPRM + strings.TrimSuffix(u.Path, "/")
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: path}).String(), path
}

type guard struct {
	cfg         *Config
	pass        http.Handler // the MCP endpoint, behind auth.RequireBearerToken
	log         *zap.Logger
	resource    string // the audience OAuth tokens must name
	metadataURL string // "" without OAuth
}

// infoKey carries the checked token's info from guard to the verifier
// of auth.RequireBearerToken, the one way to put it where the SDK reads
// it.
type infoKey struct{}

// checked is the verifier of auth.RequireBearerToken behind a guard: the
// token was checked already.
func checked(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
	return ctx.Value(infoKey{}).(*auth.TokenInfo), nil
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	info, err := g.authenticate(r)
	if err != nil {
		g.refuse(w, r, err)
		return
	}
	g.pass.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), infoKey{}, info)))
}

// refusal is a request refused, with its HTTP status and the challenge's
// error code (RFC 6750 §3.1).
type refusal struct {
	status int
	code   string // "" (no token), invalid_request, invalid_token, insufficient_scope
	msg    string
}

func (e *refusal) Error() string { return e.msg }

// authenticate is the token info of r's bearer token, or why there is
// none.
func (g *guard) authenticate(r *http.Request) (*auth.TokenInfo, error) {
	header := r.Header.Values("Authorization")
	if len(header) == 0 {
		return nil, &refusal{http.StatusUnauthorized, "", "this server needs a bearer token: send Authorization: Bearer <token>"}
	}
	scheme, token, ok := strings.Cut(header[0], " ")
	if len(header) > 1 || !ok || !strings.EqualFold(scheme, "Bearer") || token == "" || strings.ContainsAny(token, " \t") {
		return nil, &refusal{http.StatusUnauthorized, "invalid_request", "the Authorization header is malformed: send one header, Authorization: Bearer <token>"}
	}
	var info *auth.TokenInfo
	if g.cfg.Tokens != nil {
		info, _ = g.cfg.Tokens.Lookup(token)
	}
	if info == nil && g.cfg.JWT != nil && strings.Count(token, ".") == 2 {
		var err error
		if info, err = g.cfg.JWT.Verify(r.Context(), token, g.resource); err != nil {
			if errors.Is(err, ErrKeysUnavailable) {
				return nil, &refusal{http.StatusServiceUnavailable, "", "the access token cannot be checked now: " + err.Error()}
			}
			return nil, &refusal{http.StatusUnauthorized, "invalid_token", "the access token is refused: " + err.Error()}
		}
	}
	if info == nil {
		return nil, &refusal{http.StatusUnauthorized, "invalid_token", "the bearer token is not one this server issued or accepts"}
	}
	if !slices.Contains(info.Scopes, g.cfg.Required) {
		return nil, &refusal{http.StatusForbidden, "insufficient_scope",
			fmt.Sprintf("the token %s lacks the scope %s, which every request needs (it has %q)", who(info), g.cfg.Required, strings.Join(info.Scopes, " "))}
	}
	return info, nil
}

// who names a token's holder for errors and logs: a static token's name,
// or an OAuth token's subject.
func who(info *auth.TokenInfo) string {
	if name, ok := info.Extra["name"].(string); ok {
		return fmt.Sprintf("%q", name)
	}
	return fmt.Sprintf("of %q", info.UserID)
}

// refuse answers a request authenticate refused.
func (g *guard) refuse(w http.ResponseWriter, r *http.Request, err error) {
	var ref *refusal
	if !errors.As(err, &ref) {
		ref = &refusal{http.StatusInternalServerError, "", err.Error()}
	}
	if ref.status == http.StatusServiceUnavailable {
		g.log.Error("refused a request: the OAuth authorization server's keys cannot be fetched", zap.String("remote", r.RemoteAddr), zap.String("reason", ref.msg))
	} else {
		g.log.Debug("refused a request", zap.String("remote", r.RemoteAddr), zap.Int("status", ref.status), zap.String("reason", ref.msg))
	}
	params := []string{`realm="skills mcp"`}
	if g.metadataURL != "" {
		params = append(params, fmt.Sprintf("resource_metadata=%q", g.metadataURL))
	}
	if ref.code != "" {
		params = append(params, fmt.Sprintf("error=%q", ref.code), fmt.Sprintf("error_description=%q", challengeText(ref.msg)))
	}
	params = append(params, fmt.Sprintf("scope=%q", g.cfg.Required))
	h := w.Header()
	h.Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
	// The body is never read: closing the connection spares the server
	// reading what is left of it.
	h.Set("Connection", "close")
	http.Error(w, "skills mcp: "+ref.msg, ref.status)
}

// challengeText is msg as a quoted-string's content may hold it (RFC 6750
// §3: no '"' or '\').
func challengeText(msg string) string {
	return strings.Map(func(r rune) rune {
		if r == '"' || r == '\\' || r < 0x20 || r > 0x7e {
			return '\''
		}
		return r
	}, msg)
}
