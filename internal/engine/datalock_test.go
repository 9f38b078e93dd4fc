//go:build unix

package engine

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
)

// A second engine on a data directory in use refuses at start, naming the
// holder and --data; once the first closes, it starts (D66).
func TestDataDirIsLockedWhileInUse(t *testing.T) {
	dir := t.TempDir()
	first, err := Start(context.Background(), "127.0.0.1:0", Options{DataDir: dir})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	_, err = Start(context.Background(), "127.0.0.1:0", Options{DataDir: dir})
	inUse, ok := errors.AsType[*DataDirInUseError](err)
	if !ok {
		first.Close()
		t.Fatalf("second Start: %v, want a DataDirInUseError", err)
	}
	want := "pid " + strconv.Itoa(os.Getpid()) + ": " + strings.Join(os.Args, " ")
	if inUse.Holder != want || !strings.Contains(err.Error(), "the data directory "+dir+" is in use by another process ("+want+")") ||
		!strings.Contains(err.Error(), "another directory with --data") {
		t.Errorf("error = %v, want the holder %q and --data", err, want)
	}
	first.Close()
	again := newTestServerWith(t, Options{DataDir: dir})
	again.Close()
}

// holderOf reads only the note a holder writes; anything else names no
// holder rather than a wrong one.
func TestHolderOfReadsOnlyItsOwnNote(t *testing.T) {
	for in, want := range map[string]string{
		"pid 12\nskills dev --data x\n": "pid 12: skills dev --data x",
		"pid 12\n":                      "pid 12",
		"":                              "",
		"pid x\nfoo\n":                  "",
	} {
		if got := holderOf([]byte(in)); got != want {
			t.Errorf("holderOf(%q) = %q, want %q", in, got, want)
		}
	}
}
