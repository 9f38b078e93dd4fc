package filewait

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Until sees a file that arrives by rename after it started, and reports
// one that never holds what was expected.
func TestUntil(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	want := func(b []byte) bool { return bytes.Contains(b, []byte(`"kept"`)) }

	written := make(chan error, 1)
	go func() {
		tmp := filepath.Join(dir, ".state.tmp")
		if err := os.WriteFile(tmp, []byte(`{"kept":1}`), 0o600); err != nil {
			written <- err
			return
		}
		written <- os.Rename(tmp, path)
	}()
	if err := Until(path, 5*time.Second, want); err != nil {
		t.Fatal(err)
	}
	if err := <-written; err != nil {
		t.Fatal(err)
	}

	if err := os.WriteFile(path, []byte(`{"other":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	err := Until(path, 50*time.Millisecond, want)
	if err == nil || !strings.Contains(err.Error(), "does not hold what was expected 50ms later") {
		t.Fatalf("a file without the content: %v", err)
	}
	err = Until(filepath.Join(dir, "missing.json"), 50*time.Millisecond, want)
	if err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("a missing file: %v", err)
	}
}
