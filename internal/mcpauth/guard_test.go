package mcpauth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/iii-hq/skills-go/internal/mcpauth/oauthtest"
)

// guarded is a Guard over a handler that records the token info it is
// given, served over real HTTP at URL/mcp.
type guarded struct {
	URL      string // the endpoint, http://127.0.0.1:<port>/mcp
	as       *oauthtest.Server
	served   atomic.Int64
	lastInfo atomic.Pointer[auth.TokenInfo]
	logs     *observer.ObservedLogs // the guard's log, at debug level
}

// logText is every line the guard logged, with its fields.
func (g *guarded) logText() string {
	var b strings.Builder
	for _, e := range g.logs.All() {
		b.WriteString(e.Level.String() + " " + e.Message)
		for k, v := range e.ContextMap() {
			b.WriteString(" " + k + "=" + fmt.Sprint(v))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// newGuarded serves a guard accepting the static tokens of reader and
// tooler and, with an authorization server, its JWTs.
func newGuarded(t *testing.T, withOAuth bool) *guarded {
	t.Helper()
	g := &guarded{}
	tokens, err := ParseTokens("test", "reader skills:read "+readerSecret+"\ntooler skills:read,skills:tools "+toolerSecret, testScopes, "skills:read")
	if err != nil {
		t.Fatal(err)
	}
	core, logs := observer.New(zap.DebugLevel)
	g.logs = logs
	cfg := &Config{Tokens: tokens, Required: "skills:read", Scopes: testScopes, Log: zap.New(core)}
	if withOAuth {
		g.as = oauthtest.NewServer()
		t.Cleanup(g.as.Close)
		if cfg.JWT, err = NewJWT(JWTOptions{Issuer: g.as.URL, JWKSURL: g.as.JWKSURL()}); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g.URL = "http://" + ln.Addr().String() + "/mcp"
	hs := httptest.NewUnstartedServer(cfg.Guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.served.Add(1)
		g.lastInfo.Store(auth.TokenInfoFromContext(r.Context()))
		io.WriteString(w, "served") //nolint:errcheck // test peer
	}), g.URL))
	hs.Listener.Close() //nolint:errcheck // replaced by ln
	hs.Listener = ln
	hs.Start()
	t.Cleanup(hs.Close)
	return g
}

// answer is one response: its status, challenge and body.
type answer struct {
	status    int
	challenge string
	body      string
}

func (g *guarded) post(t *testing.T, authorization ...string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, g.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range authorization {
		req.Header.Add("Authorization", a)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close() //nolint:errcheck // test
	body, _ := io.ReadAll(res.Body)
	return answer{res.StatusCode, res.Header.Get("WWW-Authenticate"), string(body)}
}

// A valid static token reaches the endpoint with its scopes and name as
// the SDK reads them; without one, nothing does.
func TestGuardStaticTokens(t *testing.T) {
	g := newGuarded(t, false)
	for _, tc := range []struct {
		secret, user string
		scopes       []string
	}{
		{readerSecret, "token:reader", []string{"skills:read"}},
		{toolerSecret, "token:tooler", []string{"skills:read", "skills:tools"}},
	} {
		if a := g.post(t, "Bearer "+tc.secret); a.status != http.StatusOK || a.body != "served" {
			t.Fatalf("with %s's token: %+v; want it served", tc.user, a)
		}
		if info := g.lastInfo.Load(); info == nil || info.UserID != tc.user || !slices.Equal(info.Scopes, tc.scopes) {
			t.Errorf("the endpoint got %+v; want %s with %v", info, tc.user, tc.scopes)
		}
	}
	// Schemes are case-insensitive (RFC 7235 §2.1).
	if a := g.post(t, "bearer "+readerSecret); a.status != http.StatusOK {
		t.Errorf("with a lower-case scheme: %+v; want it served", a)
	}
}

// Every request that does not carry a valid token is refused with 401 and
// a challenge saying what was wrong (RFC 6750 §3), never quoting the
// token, and never reaches the endpoint.
func TestGuardRefusesBadTokens(t *testing.T) {
	g := newGuarded(t, true)
	now := time.Now()
	valid := jwt.Claims{Issuer: g.as.URL, Subject: "c", Audience: jwt.Audience{g.URL}, Expiry: jwt.NewNumericDate(now.Add(time.Hour))}
	with := func(edit func(*jwt.Claims)) string {
		c := valid
		edit(&c)
		return g.as.Sign(oauthtest.Claims{Claims: c, Scope: "skills:read"})
	}
	otherKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	forged := oauthtest.SignWith(oauthtest.NewSigner(otherKey, oauthtest.KeyID), oauthtest.Claims{Claims: valid, Scope: "skills:read"})
	for _, tc := range []struct {
		name          string
		authorization []string
		code, want    string
	}{
		{"no header", nil, "", "needs a bearer token: send Authorization: Bearer <token>"},
		{"basic scheme", []string{"Basic dXNlcjpwYXNz"}, "invalid_request", "the Authorization header is malformed"},
		{"bearer alone", []string{"Bearer"}, "invalid_request", "malformed"},
		{"bearer and a space", []string{"Bearer "}, "invalid_request", "malformed"},
		{"two tokens", []string{"Bearer " + readerSecret + " " + toolerSecret}, "invalid_request", "malformed"},
		{"two headers", []string{"Bearer " + readerSecret, "Bearer " + toolerSecret}, "invalid_request", "send one header"},
		{"unknown token", []string{"Bearer not-a-token-of-this-server"}, "invalid_token", "not one this server issued or accepts"},
		{"a static token's prefix", []string{"Bearer " + readerSecret[:20]}, "invalid_token", "not one this server"},
		{"a JWT of garbage", []string{"Bearer aaa.bbb.ccc"}, "invalid_token", "not a signed JWT"},
		{"expired", []string{"Bearer " + with(func(c *jwt.Claims) { c.Expiry = jwt.NewNumericDate(now.Add(-time.Hour)) })}, "invalid_token", "it expired at"},
		{"no expiry", []string{"Bearer " + with(func(c *jwt.Claims) { c.Expiry = nil })}, "invalid_token", "it has no expiry"},
		{"not yet valid", []string{"Bearer " + with(func(c *jwt.Claims) { c.NotBefore = jwt.NewNumericDate(now.Add(time.Hour)) })}, "invalid_token", "not valid before"},
		{"wrong audience", []string{"Bearer " + with(func(c *jwt.Claims) { c.Audience = jwt.Audience{"https://elsewhere.example/mcp"} })}, "invalid_token", "does not name this server"},
		{"wrong issuer", []string{"Bearer " + with(func(c *jwt.Claims) { c.Issuer = "https://evil.example" })}, "invalid_token", `its issuer "https://evil.example" is not`},
		{"bad signature", []string{"Bearer " + forged}, "invalid_token", "its signature does not verify"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := g.served.Load()
			a := g.post(t, tc.authorization...)
			if a.status != http.StatusUnauthorized || !strings.Contains(a.body, tc.want) {
				t.Errorf("status %d, body %q; want 401 saying %q", a.status, a.body, tc.want)
			}
			wantChallenge := `Bearer realm="skills mcp", resource_metadata="` + strings.Replace(g.URL, "/mcp", "/.well-known/oauth-protected-resource/mcp", 1) + `"`
			if !strings.HasPrefix(a.challenge, wantChallenge) || !strings.HasSuffix(a.challenge, `scope="skills:read"`) {
				t.Errorf("WWW-Authenticate = %q; want it to start %q and name the scope", a.challenge, wantChallenge)
			}
			if (tc.code == "") == strings.Contains(a.challenge, "error=") || !strings.Contains(a.challenge, `error="`+tc.code+`"`) && tc.code != "" {
				t.Errorf("WWW-Authenticate = %q; want error=%q", a.challenge, tc.code)
			}
			for _, h := range tc.authorization {
				if secret := strings.TrimSpace(strings.TrimPrefix(h, "Bearer")); len(secret) > 8 && (strings.Contains(a.body, secret) || strings.Contains(a.challenge, secret)) {
					t.Errorf("the answer quotes the token: %+v", a)
				}
				if secret := strings.TrimSpace(strings.TrimPrefix(h, "Bearer")); len(secret) > 8 && strings.Contains(g.logText(), secret) {
					t.Errorf("the log holds the token:\n%s", g.logText())
				}
			}
			if g.served.Load() != before {
				t.Error("the refused request reached the endpoint")
			}
		})
	}
}

// A valid token without the scope every request needs is refused with
// 403 and insufficient_scope naming the scope; an OAuth token with it is
// served, with its scopes from "scope" and "scp".
func TestGuardScopes(t *testing.T) {
	g := newGuarded(t, true)
	a := g.post(t, "Bearer "+g.as.Issue(g.URL, "c", "skills:tools"))
	if a.status != http.StatusForbidden || !strings.Contains(a.challenge, `error="insufficient_scope"`) ||
		!strings.Contains(a.challenge, `scope="skills:read"`) || !strings.Contains(a.body, "lacks the scope skills:read") {
		t.Errorf("a token without skills:read: %+v; want 403 insufficient_scope naming skills:read", a)
	}
	if a := g.post(t, "Bearer "+g.as.Issue(g.URL, "c", "skills:read", "skills:tools")); a.status != http.StatusOK {
		t.Fatalf("a valid JWT: %+v; want it served", a)
	}
	if info := g.lastInfo.Load(); !slices.Equal(info.Scopes, []string{"skills:read", "skills:tools"}) || info.Expiration.IsZero() {
		t.Errorf("the endpoint got %+v; want both scopes and an expiry", info)
	}
	now := time.Now()
	scp := struct {
		jwt.Claims
		Scp []string `json:"scp"`
	}{jwt.Claims{Issuer: g.as.URL, Subject: "c", Audience: jwt.Audience{g.URL}, Expiry: jwt.NewNumericDate(now.Add(time.Hour))}, []string{"skills:read"}}
	tok, err := jwt.Signed(g.as.Signer()).Claims(scp).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	if a := g.post(t, "Bearer "+tok); a.status != http.StatusOK {
		t.Errorf("a JWT with scp [skills:read]: %+v; want it served", a)
	}
}

// The Protected Resource Metadata (RFC 9728) is served without a token,
// at the well-known path and at it followed by the endpoint's path,
// naming the resource, the authorization server and the scopes.
func TestGuardServesProtectedResourceMetadata(t *testing.T) {
	g := newGuarded(t, true)
	for _, path := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
		res, err := http.Get(strings.TrimSuffix(g.URL, "/mcp") + path)
		if err != nil {
			t.Fatal(err)
		}
		var prm struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
			ScopesSupported      []string `json:"scopes_supported"`
		}
		err = json.NewDecoder(res.Body).Decode(&prm)
		res.Body.Close() //nolint:errcheck // test
		if err != nil || res.StatusCode != http.StatusOK || prm.Resource != g.URL ||
			!slices.Equal(prm.AuthorizationServers, []string{g.as.URL}) || !slices.Equal(prm.ScopesSupported, testScopes) {
			t.Errorf("GET %s: %d %+v, %v; want resource %s, server %s, scopes %v", path, res.StatusCode, prm, err, g.URL, g.as.URL, testScopes)
		}
	}
}

// Keys that cannot be fetched are the server's fault: 503 at once, saying
// so, with one fetch for a burst of requests; once the keys are back
// (after jwksRetry), tokens are served again.
func TestGuardKeysUnavailable(t *testing.T) {
	g := newGuarded(t, true)
	g.as.KeysDown(true)
	tok := g.as.Issue(g.URL, "c", "skills:read")
	for range 5 {
		start := time.Now()
		a := g.post(t, "Bearer "+tok)
		if a.status != http.StatusServiceUnavailable || !strings.Contains(a.body, "signing keys cannot be fetched from "+g.as.JWKSURL()) {
			t.Fatalf("with the keys down: %+v; want 503 naming the JWKS URL", a)
		}
		if d := time.Since(start); d > jwksFetchTimeout {
			t.Fatalf("the refusal took %s, more than the fetch timeout %s", d, jwksFetchTimeout)
		}
	}
	if n := g.as.KeyFetches(); n != 1 {
		t.Errorf("5 requests fetched the keys %d times; want 1 within jwksRetry", n)
	}
	logged := g.logText()
	if !strings.Contains(logged, "error refused a request: the OAuth authorization server's keys cannot be fetched") ||
		!strings.Contains(logged, g.as.JWKSURL()) || strings.Contains(logged, tok) {
		t.Errorf("the log says:\n%s\nwant an error line naming the JWKS URL, without the token", logged)
	}
}

// The JWKS URL of an authorization server that is not there at all gives
// 503 naming it, not a hang.
func TestGuardJWKSUnreachable(t *testing.T) {
	as := oauthtest.NewServer()
	tok := as.Issue("http://127.0.0.1:1/mcp", "c", "skills:read")
	issuer, keys := as.URL, as.JWKSURL()
	as.Close() // nothing listens there any more
	j, err := NewJWT(JWTOptions{Issuer: issuer, JWKSURL: keys})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	(&Config{JWT: j, Required: "skills:read", Scopes: testScopes}).Guard(http.NotFoundHandler(), "http://127.0.0.1:1/mcp").ServeHTTP(rec, req)
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "cannot be fetched from "+keys) {
		t.Errorf("an unreachable JWKS: %d %q; want 503 naming %s", rec.Code, rec.Body, keys)
	}
}

// bodyWatch is a request body that counts its reads.
type bodyWatch struct{ reads *atomic.Int64 }

func (b bodyWatch) Read([]byte) (int, error) { b.reads.Add(1); return 0, io.EOF }

// A flood of requests without a valid token costs a header each: no body
// is read, the endpoint (and so no MCP session) is never reached, and the
// connection is closed after the answer.
func TestGuardFloodCostsAHeaderEach(t *testing.T) {
	var reads, served atomic.Int64
	tokens, _ := ParseTokens("test", "reader skills:read "+readerSecret, testScopes, "skills:read")
	h := (&Config{Tokens: tokens, Required: "skills:read", Scopes: testScopes}).Guard(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		served.Add(1)
	}), "http://127.0.0.1:1/mcp")
	for i := range 10000 {
		req := httptest.NewRequest(http.MethodPost, "/mcp", bodyWatch{&reads})
		if i%2 == 1 {
			req.Header.Set("Authorization", "Bearer wrong-token-wrong-token")
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusUnauthorized || rec.Header().Get("Connection") != "close" {
			t.Fatalf("request %d: %d, Connection %q; want 401 closing the connection", i, rec.Code, rec.Header().Get("Connection"))
		}
	}
	if reads.Load() != 0 || served.Load() != 0 {
		t.Errorf("10000 refused requests read a body %d times and reached the endpoint %d times; want 0 and 0", reads.Load(), served.Load())
	}
}
