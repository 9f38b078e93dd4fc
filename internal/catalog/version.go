package catalog

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
)

// Versions of acknowledged writes (docs/decisions.md D78). A write
// through skills::register, skills::unregister, prompts::register or
// prompts::unregister answers with a version: a token naming the scope,
// the key and the fingerprint of the value the engine now holds (the
// SHA-256 of its bytes as the engine echoed them, the one the catalog
// keeps per entry, D73.1), or a delete. A read given that token with
// `after` answers only once this replica's mirror holds that value or a
// newer one (read_after.go), whichever replica or engine took the write.

// versionPrefix starts every token; it names the token's layout, so a
// later layout can be told apart.
const versionPrefix = "v1."

// deletedMark stands for the fingerprint of a delete in a token.
const deletedMark = "-"

// MaxAfter is how many versions one read may name in `after`.
const MaxAfter = 64

// maxTokenBytes bounds a token's length: a scope name, a key of at most
// 1,024 bytes and a fingerprint, each base64url-encoded, fit well within
// it.
const maxTokenBytes = 4096

// WriteVersion names one acknowledged write: the scope and key written, and
// the fingerprint of the value stored, or Deleted.
type WriteVersion struct {
	Scope, Key string
	Deleted    bool
	sum        valueSum
}

// VersionOf is the version of a write of key in scope whose stored value
// the engine echoed as echo: its bytes as the engine sent them.
func VersionOf(scope, key string, echo json.RawMessage) WriteVersion {
	return WriteVersion{Scope: scope, Key: key, sum: sumOf(echo)}
}

// DeletedVersion is the version of a delete of key in scope.
func DeletedVersion(scope, key string) WriteVersion {
	return WriteVersion{Scope: scope, Key: key, Deleted: true}
}

// Token is the version as a reply carries it: opaque to callers, read
// back by ParseVersion. The zero WriteVersion has none ("").
func (v WriteVersion) Token() string {
	if v.Scope == "" {
		return ""
	}
	enc := base64.RawURLEncoding
	sum := deletedMark
	if !v.Deleted {
		sum = enc.EncodeToString(v.sum[:])
	}
	return versionPrefix + enc.EncodeToString([]byte(v.Scope)) + "." + enc.EncodeToString([]byte(v.Key)) + "." + sum
}

// ParseVersion reads a token Token made; the error names the token and
// says where valid ones come from.
func ParseVersion(token string) (WriteVersion, error) {
	bad := func(why string) (WriteVersion, error) {
		return WriteVersion{}, contract.Invalidf("version %s is not one this worker issued (%s): pass the \"version\" of a skills::register, skills::unregister, prompts::register or prompts::unregister reply, unchanged",
			ids.Quote(token), why)
	}
	if len(token) > maxTokenBytes {
		return bad(fmt.Sprintf("%d bytes; at most %d", len(token), maxTokenBytes))
	}
	rest, ok := strings.CutPrefix(token, versionPrefix)
	if !ok {
		return bad("it does not start with " + ids.Quote(versionPrefix))
	}
	parts := strings.Split(rest, ".")
	if len(parts) != 3 {
		return bad("it does not have four dot-separated parts")
	}
	enc := base64.RawURLEncoding
	scope, err1 := enc.DecodeString(parts[0])
	key, err2 := enc.DecodeString(parts[1])
	if err1 != nil || err2 != nil || len(scope) == 0 || len(key) == 0 {
		return bad("its scope or key does not decode")
	}
	v := WriteVersion{Scope: string(scope), Key: string(key)}
	if parts[2] == deletedMark {
		v.Deleted = true
		return v, nil
	}
	sum, err := enc.DecodeString(parts[2])
	if err != nil || len(sum) != len(v.sum) {
		return bad("its fingerprint is not a base64url SHA-256")
	}
	copy(v.sum[:], sum)
	return v, nil
}

// After is the `after` argument of a read: one version token or a list of
// them (at most MaxAfter), each checked as it is decoded, so a bad one is
// an invalid_argument error before anything is read. Absent or null is
// none.
type After []string

// UnmarshalJSON reads a token or a list of tokens.
func (a *After) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if string(data) == "null" {
		*a = nil
		return nil
	}
	var tokens []string
	if len(data) > 0 && data[0] == '"' {
		var one string
		if err := json.Unmarshal(data, &one); err != nil {
			return afterShapeError(data)
		}
		tokens = []string{one}
	} else if err := json.Unmarshal(data, &tokens); err != nil {
		return afterShapeError(data)
	}
	if len(tokens) > MaxAfter {
		return contract.Invalidf("`after` names %d versions; at most %d", len(tokens), MaxAfter)
	}
	for _, t := range tokens {
		if _, err := ParseVersion(t); err != nil {
			return err
		}
	}
	*a = tokens
	return nil
}

// JSONSchema describes `after` in the request schema of every read that
// takes it: a token or a list of tokens (the field's tag describes it).
func (After) JSONSchema() *jsonschema.Schema {
	most := uint64(MaxAfter)
	return &jsonschema.Schema{OneOf: []*jsonschema.Schema{
		{Type: "string"},
		{Type: "array", Items: &jsonschema.Schema{Type: "string"}, MaxItems: &most},
	}}
}

// afterShapeError says what `after` may be, quoting (at most 200 bytes
// of) what it was.
func afterShapeError(data []byte) error {
	return contract.Invalidf("`after` must be a version string from a write's reply, or a list of at most %d of them; got %s",
		MaxAfter, ids.Unquoted(string(data)))
}

// Versions returns the versions named, in order; the tokens were checked
// when a was decoded.
func (a After) Versions() ([]WriteVersion, error) {
	out := make([]WriteVersion, 0, len(a))
	for _, t := range a {
		v, err := ParseVersion(t)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
