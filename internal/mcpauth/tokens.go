// Package mcpauth decides who may use skills mcp over Streamable HTTP
// (docs/mcp.md, "Authentication"; docs/decisions.md D62): bearer tokens
// an operator issues (Tokens), OAuth 2.1 access tokens signed by an
// authorization server (JWT), the HTTP middleware that checks either
// before anything else reads the request (Guard), and the Protected
// Resource Metadata (RFC 9728) that tells OAuth clients where to get a
// token. What each scope allows is the MCP server's to decide
// (mcpserver.Scoped); this package only proves who is asking.
package mcpauth

import (
	"bufio"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// MinTokenLength is the shortest static token accepted: a shorter one
// could be guessed.
const MinTokenLength = 16

// Tokens are the static bearer tokens an operator issued, each with a
// name (which logs may show) and scopes. The tokens themselves are kept
// only as SHA-256 digests, compared in constant time, so neither their
// content nor their length shows in timing, and no error or log line
// ever holds one.
type Tokens struct {
	entries []tokenEntry
}

type tokenEntry struct {
	name   string
	scopes []string
	digest [sha256.Size]byte
}

// tokenName is what a token's name may be: it appears in logs.
var tokenName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$`)

// ParseTokens reads tokens in the format of a token file: one token a
// line, "NAME SCOPE[,SCOPE…] TOKEN", fields separated by spaces or tabs;
// blank lines and lines starting with # are skipped. Every scope must be
// one of known, and every token must have required among its scopes
// (without it, it could never connect). source names where the text came
// from, for errors; an error names a line and a token's name, never a
// token.
func ParseTokens(source, text string, known []string, required string) (*Tokens, error) {
	t := &Tokens{}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 3 {
			return nil, fmt.Errorf("%s, line %d: %d fields; each line is NAME SCOPE[,SCOPE…] TOKEN (e.g. \"ci %s,%s <token>\")",
				source, n, len(fields), known[0], known[len(known)-1])
		}
		name, scopeList, secret := fields[0], fields[1], fields[2]
		if !tokenName.MatchString(name) {
			return nil, fmt.Errorf("%s, line %d: name %q: give letters, digits, '.', '_', '@' or '-', at most 64", source, n, name)
		}
		scopes := strings.Split(scopeList, ",")
		for _, s := range scopes {
			if !slices.Contains(known, s) {
				return nil, fmt.Errorf("%s, line %d: token %q: unknown scope %q; the scopes are %s", source, n, name, s, strings.Join(known, ", "))
			}
		}
		if !slices.Contains(scopes, required) {
			return nil, fmt.Errorf("%s, line %d: token %q lacks the scope %s, which every request needs; add it (%s,%s)",
				source, n, name, required, required, scopeList)
		}
		if len(secret) < MinTokenLength {
			return nil, fmt.Errorf("%s, line %d: token %q is shorter than %d characters; issue a random one (e.g. openssl rand -hex 32)",
				source, n, name, MinTokenLength)
		}
		e := tokenEntry{name: name, scopes: scopes, digest: sha256.Sum256([]byte(secret))}
		for _, o := range t.entries {
			switch {
			case o.name == name:
				return nil, fmt.Errorf("%s, line %d: a second token named %q; give each token its own name", source, n, name)
			case o.digest == e.digest:
				return nil, fmt.Errorf("%s, line %d: token %q is the same token as %q; issue each its own", source, n, name, o.name)
			}
		}
		t.entries = append(t.entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if len(t.entries) == 0 {
		return nil, fmt.Errorf("%s holds no token; each line is NAME SCOPE[,SCOPE…] TOKEN", source)
	}
	return t, nil
}

// ReadTokenFile reads a token file (ParseTokens). A file that is missing,
// or that its group or others may read or write, is refused: the error
// names the path and its mode, never what it holds.
func ReadTokenFile(path string, known []string, required string) (*Tokens, error) {
	info, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("token file %s does not exist; create it (mode 0600) with one line a token: NAME SCOPE[,SCOPE…] TOKEN", path)
		}
		return nil, fmt.Errorf("token file: %w", err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("token file %s is not a regular file (mode %s)", path, info.Mode())
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 && runtime.GOOS != "windows" {
		return nil, fmt.Errorf("token file %s has mode %04o: its group or others may read it; make it the owner's alone (chmod 600 %s)", path, perm, path)
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("token file: %w", err)
	}
	return ParseTokens("token file "+path, string(text), known, required)
}

// Merge is t with the tokens of o added; a name or token in both is an
// error, as within one source.
func (t *Tokens) Merge(o *Tokens) (*Tokens, error) {
	if t == nil {
		return o, nil
	}
	if o == nil {
		return t, nil
	}
	out := &Tokens{entries: slices.Clone(t.entries)}
	for _, e := range o.entries {
		for _, x := range out.entries {
			if x.name == e.name {
				return nil, fmt.Errorf("two tokens named %q (in the file and the environment); give each its own name", e.name)
			}
			if x.digest == e.digest {
				return nil, fmt.Errorf("token %q is the same token as %q; issue each its own", e.name, x.name)
			}
		}
		out.entries = append(out.entries, e)
	}
	return out, nil
}

// Len is how many tokens t holds.
func (t *Tokens) Len() int { return len(t.entries) }

// Lookup is the token info of secret, or ok false when it is none of t's.
// It compares secret's digest with every token's, all of them whatever
// matches, in constant time. The info names the token ("token:NAME") as
// its UserID, which binds an MCP session to the token that opened it.
func (t *Tokens) Lookup(secret string) (info *auth.TokenInfo, ok bool) {
	d := sha256.Sum256([]byte(secret))
	found := -1
	for i := range t.entries {
		if subtle.ConstantTimeCompare(d[:], t.entries[i].digest[:]) == 1 {
			found = i
		}
	}
	if found < 0 {
		return nil, false
	}
	e := t.entries[found]
	return &auth.TokenInfo{Scopes: slices.Clone(e.scopes), UserID: "token:" + e.name, Extra: map[string]any{"name": e.name}}, true
}
