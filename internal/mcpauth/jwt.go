package mcpauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// clockSkew is how far the clocks of the authorization server and this
// one may disagree on a token's exp, nbf and iat.
const clockSkew = time.Minute

// signatureAlgorithms are the JWS algorithms accepted: asymmetric ones,
// whose public keys a JWKS gives (never "none", never HMAC).
var signatureAlgorithms = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512, jose.EdDSA,
}

// JWT checks OAuth 2.1 access tokens that are JWTs (RFC 9068) signed by
// an authorization server whose keys a JWKS URL gives: the signature, the
// issuer, the audience (this server's resource URL, as the MCP
// authorization specification requires: a token issued for another
// resource is refused), the expiry (required) and the not-before time.
// The token's scopes are its "scope" claim (space separated) and its
// "scp" claim (a string or a list).
type JWT struct {
	issuer string
	keys   *jwks
}

// JWTOptions configure a JWT.
type JWTOptions struct {
	// Issuer is the authorization server's issuer identifier, the "iss"
	// of its tokens. Required.
	Issuer string
	// JWKSURL is where its signing keys are. Required.
	JWKSURL string
	// Client fetches the keys; default http.DefaultClient (a fetch is
	// bounded by jwksFetchTimeout whatever the client).
	Client *http.Client
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// NewJWT returns a JWT checker for opts. It fetches nothing until the
// first token.
func NewJWT(opts JWTOptions) (*JWT, error) {
	switch {
	case opts.Issuer == "":
		return nil, errors.New("OAuth: the authorization server's issuer is required")
	case opts.JWKSURL == "":
		return nil, errors.New("OAuth: the authorization server's JWKS URL is required")
	}
	if opts.Client == nil {
		opts.Client = http.DefaultClient
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &JWT{issuer: opts.Issuer, keys: &jwks{url: opts.JWKSURL, client: opts.Client, now: opts.Now}}, nil
}

// Issuer is the authorization server's issuer identifier.
func (j *JWT) Issuer() string { return j.issuer }

// accessClaims are the claims read beyond the registered ones.
type accessClaims struct {
	Scope    string          `json:"scope"`
	Scp      json.RawMessage `json:"scp"`
	ClientID string          `json:"client_id"`
}

// Verify checks token, which must name audience (this server's resource
// URL) among its "aud", and returns what it grants. An invalid token's
// error wraps auth.ErrInvalidToken and says what was wrong without
// quoting the token; keys that cannot be fetched wrap ErrKeysUnavailable.
func (j *JWT) Verify(ctx context.Context, token, audience string) (*auth.TokenInfo, error) {
	tok, err := jwt.ParseSigned(token, signatureAlgorithms)
	if err != nil {
		return nil, invalid("not a signed JWT with an asymmetric algorithm (%s)", algorithmNames())
	}
	kid := tok.Headers[0].KeyID
	keys, err := j.keys.keys(ctx, kid)
	if err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		return nil, invalid("its key id %.100q is not among the authorization server's keys", kid)
	}
	var std jwt.Claims
	var extra accessClaims
	verified := false
	for _, k := range keys {
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		if tok.Claims(k.Public().Key, &std, &extra) == nil {
			verified = true
			break
		}
	}
	if !verified {
		return nil, invalid("its signature does not verify with the authorization server's keys")
	}
	if std.Expiry == nil {
		return nil, invalid("it has no expiry (exp); access tokens must expire")
	}
	now := j.keys.now()
	switch err := std.ValidateWithLeeway(jwt.Expected{Issuer: j.issuer, AnyAudience: jwt.Audience{audience}, Time: now}, clockSkew); {
	case errors.Is(err, jwt.ErrInvalidIssuer):
		return nil, invalid("its issuer %.200q is not %q", std.Issuer, j.issuer)
	case errors.Is(err, jwt.ErrInvalidAudience):
		return nil, invalid("its audience %.200q does not name this server, %q; ask the authorization server for a token for this resource", []string(std.Audience), audience)
	case errors.Is(err, jwt.ErrExpired):
		return nil, invalid("it expired at %s", std.Expiry.Time().UTC().Format(time.RFC3339))
	case errors.Is(err, jwt.ErrNotValidYet):
		return nil, invalid("it is not valid before %s", std.NotBefore.Time().UTC().Format(time.RFC3339))
	case err != nil:
		return nil, invalid("%v", err)
	}
	scopes := strings.Fields(extra.Scope)
	for _, s := range scpClaim(extra.Scp) {
		if !slices.Contains(scopes, s) {
			scopes = append(scopes, s)
		}
	}
	info := &auth.TokenInfo{Scopes: scopes, Expiration: std.Expiry.Time(), UserID: std.Issuer + " " + std.Subject, Extra: map[string]any{}}
	if std.Subject == "" {
		info.UserID = std.Issuer + " client " + extra.ClientID
	}
	if extra.ClientID != "" {
		info.Extra["client_id"] = extra.ClientID
	}
	return info, nil
}

// scpClaim is an "scp" claim's scopes: a space-separated string or a list
// of strings.
func scpClaim(raw json.RawMessage) []string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.Fields(s)
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return list
	}
	return nil
}

// invalid is an invalid token's error: "invalid token: …". What it
// quotes of the token (issuer, audience, key id: never secrets) is
// clipped, since anyone may send any.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", auth.ErrInvalidToken, fmt.Sprintf(format, args...))
}

func algorithmNames() string {
	names := make([]string, len(signatureAlgorithms))
	for i, a := range signatureAlgorithms {
		names[i] = string(a)
	}
	return strings.Join(names, ", ")
}
