package mcpauth

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

var testScopes = []string{"skills:read", "skills:tools"}

const (
	readerSecret = "r3ader-0123456789abcdef"
	toolerSecret = "t00ler-0123456789abcdef"
)

// A token file's lines give each token a name and scopes; a token is
// found by its secret and told by its name, and a secret that is none of
// them is not found.
func TestTokensLookup(t *testing.T) {
	tokens, err := ParseTokens("test", "# operators\n\nreader skills:read "+readerSecret+"\n"+
		"tooler\tskills:read,skills:tools\t"+toolerSecret+"\n", testScopes, "skills:read")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		secret, user string
		scopes       []string
	}{
		{readerSecret, "token:reader", []string{"skills:read"}},
		{toolerSecret, "token:tooler", []string{"skills:read", "skills:tools"}},
	} {
		info, ok := tokens.Lookup(tc.secret)
		if !ok || info.UserID != tc.user || !slices.Equal(info.Scopes, tc.scopes) {
			t.Errorf("Lookup(secret of %s) = %+v, %v; want %s with %v", tc.user, info, ok, tc.user, tc.scopes)
		}
	}
	for _, bad := range []string{"", readerSecret[:len(readerSecret)-1], readerSecret + "x", strings.ToUpper(readerSecret)} {
		if info, ok := tokens.Lookup(bad); ok {
			t.Errorf("Lookup(%q) = %+v; want not found", bad, info)
		}
	}
}

// A token source that cannot be used is refused with the line and what
// is allowed, naming the token's name but never quoting a token.
func TestParseTokensRefuses(t *testing.T) {
	const secret = "s3cret-s3cret-s3cret"
	for _, tc := range []struct{ name, text, want string }{
		{"two fields", "ci skills:read", "line 1: 2 fields; each line is NAME SCOPE[,SCOPE…] TOKEN"},
		{"four fields", "ci skills:read " + secret + " extra", "line 1: 4 fields"},
		{"unknown scope", "ci skills:write " + secret, `token "ci": unknown scope "skills:write"; the scopes are skills:read, skills:tools`},
		{"no read scope", "ci skills:tools " + secret, `token "ci" lacks the scope skills:read, which every request needs`},
		{"short token", "ci skills:read s3cret", `token "ci" is shorter than 16 characters`},
		{"bad name", "c/i skills:read " + secret, `name "c/i"`},
		{"same name", "ci skills:read " + secret + "\nci skills:read other-" + secret, `line 2: a second token named "ci"`},
		{"same token", "ci skills:read " + secret + "\nbot skills:read " + secret, `line 2: token "bot" is the same token as "ci"`},
		{"empty", "# nothing\n\n", "holds no token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseTokens("test", tc.text, testScopes, "skills:read")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ParseTokens = %v; want an error saying %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("the error quotes a token: %v", err)
			}
		})
	}
}

// A token file must exist and be its owner's alone: a missing one, or
// one its group or others may read, is refused, naming the path and the
// mode, never what it holds.
func TestReadTokenFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tokens")
	if _, err := ReadTokenFile(path, testScopes, "skills:read"); err == nil || !strings.Contains(err.Error(), "token file "+path+" does not exist") {
		t.Errorf("a missing file: %v; want an error naming it", err)
	}
	if err := os.WriteFile(path, []byte("ci skills:read "+readerSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tokens, err := ReadTokenFile(path, testScopes, "skills:read")
	if err != nil || tokens.Len() != 1 {
		t.Fatalf("a 0600 file: %v, %v; want its one token", tokens, err)
	}
	if runtime.GOOS == "windows" {
		return
	}
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		_, err := ReadTokenFile(path, testScopes, "skills:read")
		want := "has mode 0" + map[os.FileMode]string{0o644: "644", 0o640: "640", 0o604: "604"}[mode]
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "chmod 600") {
			t.Errorf("mode %04o: %v; want an error naming the path, %q and chmod 600", mode, err, want)
		}
		if err != nil && strings.Contains(err.Error(), readerSecret) {
			t.Errorf("the error quotes the token: %v", err)
		}
	}
}

// The tokens of a file and of the environment are merged; a name or a
// token in both is refused.
func TestTokensMerge(t *testing.T) {
	a, _ := ParseTokens("a", "ci skills:read "+readerSecret, testScopes, "skills:read")
	b, _ := ParseTokens("b", "bot skills:read,skills:tools "+toolerSecret, testScopes, "skills:read")
	m, err := a.Merge(b)
	if err != nil || m.Len() != 2 {
		t.Fatalf("Merge = %v, %v; want 2 tokens", m, err)
	}
	if _, ok := m.Lookup(toolerSecret); !ok {
		t.Error("the merged tokens lack the second source's")
	}
	if _, err := a.Merge(a); err == nil || !strings.Contains(err.Error(), `two tokens named "ci"`) {
		t.Errorf("Merge of a name twice = %v; want it refused", err)
	}
}
