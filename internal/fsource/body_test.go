package fsource

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadBody(t *testing.T) {
	atCap := strings.Repeat("x", MaxBodyBytes)
	tests := []struct {
		name     string
		content  string
		wantBody string
		wantErr  string // with {path} for the absolute path
	}{
		{name: "plain markdown", content: "# Title\n\nBody.\n", wantBody: "# Title\n\nBody.\n"},
		{name: "frontmatter stripped", content: "---\ndescription: d\n---\n# T\nbody\n", wantBody: "# T\nbody\n"},
		{name: "CRLF frontmatter stripped", content: "---\r\na: 1\r\n---\r\nbody\r\n", wantBody: "body\r\n"},
		{name: "unclosed frontmatter is body", content: "---\na: 1\nbody\n", wantBody: "---\na: 1\nbody\n"},
		{name: "surrounding newlines kept", content: "\n\nbody\n\n", wantBody: "\n\nbody\n\n"},
		{name: "whitespace is not empty", content: "  \n", wantBody: "  \n"},
		{name: "empty file", content: "", wantErr: "file {path} has empty body"},
		{name: "only newlines", content: "\n\n\n", wantErr: "file {path} has empty body"},
		{name: "only CRLF line breaks", content: "---\r\na: 1\r\n---\r\n\r\n\r\n", wantErr: "file {path} has empty body"},
		{name: "frontmatter only", content: "---\ndescription: d\n---\n", wantErr: "file {path} has empty body"},
		{name: "body at the cap", content: "---\na: 1\n---\n" + atCap, wantBody: atCap},
		{name: "body over the cap", content: atCap + "y", wantErr: "file {path} is too large (262145 bytes; max 262144)"},
		{name: "the cap counts the body, not the frontmatter", content: "---\na: " + atCap + "\n---\nsmall", wantBody: "small"},
		{name: "binary junk", content: "ok\x00\xc3\x28", wantErr: "read {path}: not valid UTF-8 text (first invalid byte at offset 3)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{"f.md": tt.content})
			path := filepath.Join(dir, "f.md")
			body, err := ReadBody(path)
			if diff := cmp.Diff(tt.wantErr, errText(err, path)); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if body != tt.wantBody {
				t.Errorf("body = %.60q, want %.60q", body, tt.wantBody)
			}
		})
	}
}

// errText renders err with path written as {path}; "" for nil.
func errText(err error, path string) string {
	if err == nil {
		return ""
	}
	return strings.ReplaceAll(err.Error(), path, "{path}")
}

func TestReadBodyFileErrors(t *testing.T) {
	dir := writeTree(t, map[string]string{"sub/": "", "broken.md": "->nowhere.md"})
	big := filepath.Join(dir, "huge.md")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(maxFileBytes + 1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	f.Close()

	tests := []struct {
		name, path, wantErr string
		notExist            bool
	}{
		{name: "missing", path: filepath.Join(dir, "missing.md"), wantErr: "read {path}: no such file or directory", notExist: true},
		{name: "broken link", path: filepath.Join(dir, "broken.md"), wantErr: "read {path}: no such file or directory", notExist: true},
		{name: "directory", path: filepath.Join(dir, "sub"), wantErr: "read {path}: is a directory"},
		{name: "too large to read at all", path: big, wantErr: "file {path} is too large (16777217 bytes; max 262144)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadBody(tt.path)
			if diff := cmp.Diff(tt.wantErr, errText(err, tt.path)); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if got := errors.Is(err, fs.ErrNotExist); got != tt.notExist {
				t.Errorf("errors.Is(err, fs.ErrNotExist) = %v, want %v", got, tt.notExist)
			}
		})
	}
}

func TestReadBodyNamesTheAbsolutePath(t *testing.T) {
	dir := writeTree(t, map[string]string{"empty.md": ""})
	t.Chdir(dir)
	_, err := ReadBody("empty.md")
	want := "file " + filepath.Join(dir, "empty.md") + " has empty body"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}

func TestReadBodySeesEdits(t *testing.T) {
	dir := writeTree(t, map[string]string{"f.md": "one"})
	path := filepath.Join(dir, "f.md")
	for _, want := range []string{"one", "two"} {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadBody(path)
		if err != nil || got != want {
			t.Errorf("ReadBody = %q, %v; want %q", got, err, want)
		}
	}
}
