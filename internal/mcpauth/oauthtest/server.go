// Package oauthtest is an OAuth 2.1 authorization server for tests, on
// loopback, in the shape of httptest.Server (NewServer, URL, Close): its
// metadata (RFC 8414) at /.well-known/oauth-authorization-server, its
// signing keys at /jwks, and a token endpoint that grants
// client_credentials to the clients AddClient registers, issuing JWT
// access tokens (RFC 9068) for the resource the request names. It follows
// the specifications; misbehaviour is opt-in (KeysDown, Sign with any
// claims).
package oauthtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// KeyID is the key id of the server's signing key.
const KeyID = "oauthtest-1"

// TokenLifetime is how long the tokens the token endpoint issues last.
const TokenLifetime = time.Hour

// Server is a test authorization server.
type Server struct {
	// URL is its issuer identifier, http://127.0.0.1:<port>.
	URL string

	hs       *httptest.Server
	key      *ecdsa.PrivateKey
	signer   jose.Signer
	keysDown atomic.Bool
	fetches  atomic.Int64

	mu      sync.Mutex
	clients map[string]client
}

type client struct {
	secret string
	scopes []string
}

// NewServer starts an authorization server on a loopback port.
func NewServer() *Server {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(fmt.Sprintf("oauthtest: %v", err))
	}
	s := &Server{key: key, clients: map[string]client{}}
	s.signer = NewSigner(key, KeyID)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", s.metadata)
	mux.HandleFunc("GET /jwks", s.jwks)
	mux.HandleFunc("POST /token", s.token)
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "oauthtest grants client_credentials only", http.StatusBadRequest)
	})
	s.hs = httptest.NewServer(mux)
	s.URL = s.hs.URL
	return s
}

// NewSigner signs with key under the key id kid (ES256), as Sign does:
// for tokens signed by a key the server's JWKS does not hold.
func NewSigner(key *ecdsa.PrivateKey, kid string) jose.Signer {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key},
		(&jose.SignerOptions{}).WithType("at+jwt").WithHeader(jose.HeaderKey("kid"), kid))
	if err != nil {
		panic(fmt.Sprintf("oauthtest: %v", err))
	}
	return signer
}

// Signer signs with the server's key, for claims Claims cannot hold.
func (s *Server) Signer() jose.Signer { return s.signer }

// JWKSURL is where the server's signing keys are.
func (s *Server) JWKSURL() string { return s.URL + "/jwks" }

// Close stops the server and waits for its requests.
func (s *Server) Close() { s.hs.Close() }

// AddClient registers a confidential client that may be granted scopes.
func (s *Server) AddClient(id, secret string, scopes ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clients[id] = client{secret: secret, scopes: scopes}
}

// KeysDown makes /jwks answer 503 (down true) or serve the keys again.
func (s *Server) KeysDown(down bool) { s.keysDown.Store(down) }

// KeyFetches is how many times /jwks was asked.
func (s *Server) KeyFetches() int64 { return s.fetches.Load() }

// Claims are the claims of a token Sign signs.
type Claims struct {
	jwt.Claims
	Scope    string `json:"scope,omitempty"`
	ClientID string `json:"client_id,omitempty"`
}

// Sign signs claims with the server's key, whatever they say.
func (s *Server) Sign(c Claims) string { return SignWith(s.signer, c) }

// SignWith signs claims with signer.
func SignWith(signer jose.Signer, c Claims) string {
	tok, err := jwt.Signed(signer).Claims(c).Serialize()
	if err != nil {
		panic(fmt.Sprintf("oauthtest: %v", err))
	}
	return tok
}

// Issue is a valid access token for audience with scopes, lasting
// TokenLifetime, as the token endpoint would issue it.
func (s *Server) Issue(audience, subject string, scopes ...string) string {
	now := time.Now()
	return s.Sign(Claims{Claims: jwt.Claims{Issuer: s.URL, Subject: subject, Audience: jwt.Audience{audience},
		IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now), Expiry: jwt.NewNumericDate(now.Add(TokenLifetime))},
		Scope: strings.Join(scopes, " "), ClientID: subject})
}

func (s *Server) metadata(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                s.URL,
		"authorization_endpoint":                s.URL + "/authorize",
		"token_endpoint":                        s.URL + "/token",
		"jwks_uri":                              s.JWKSURL(),
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"client_credentials"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post"},
		"code_challenge_methods_supported":      []string{"S256"},
	})
}

func (s *Server) jwks(w http.ResponseWriter, _ *http.Request) {
	s.fetches.Add(1)
	if s.keysDown.Load() {
		http.Error(w, "keys down (oauthtest.KeysDown)", http.StatusServiceUnavailable)
		return
	}
	writeJSON(w, http.StatusOK, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
		{Key: &s.key.PublicKey, KeyID: KeyID, Algorithm: string(jose.ES256), Use: "sig"},
	}})
}

// token grants client_credentials (RFC 6749 §4.4) to a registered client
// authenticated by client_secret_basic or client_secret_post, for the
// scopes it asks that it may have, with the audience its resource
// parameter (RFC 8707) names.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	if g := r.PostForm.Get("grant_type"); g != "client_credentials" {
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", fmt.Sprintf("grant_type %q: only client_credentials", g))
		return
	}
	id, secret, ok := r.BasicAuth()
	if !ok {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	s.mu.Lock()
	c, known := s.clients[id]
	s.mu.Unlock()
	if !known || c.secret != secret {
		oauthError(w, http.StatusUnauthorized, "invalid_client", "unknown client or wrong secret")
		return
	}
	resource := r.PostForm.Get("resource")
	if resource == "" {
		oauthError(w, http.StatusBadRequest, "invalid_target", "name the resource (RFC 8707)")
		return
	}
	var granted []string
	for _, want := range strings.Fields(r.PostForm.Get("scope")) {
		if slices.Contains(c.scopes, want) {
			granted = append(granted, want)
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": s.Issue(resource, id, granted...),
		"token_type":   "Bearer",
		"expires_in":   int(TokenLifetime.Seconds()),
		"scope":        strings.Join(granted, " "),
	})
}

func oauthError(w http.ResponseWriter, status int, code, desc string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
