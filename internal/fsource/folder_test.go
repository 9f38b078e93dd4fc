package fsource

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestFolderFiles(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	outside := filepath.Join(dir, "outside")
	for path, content := range map[string]string{
		"root/pdf/SKILL.md":          "---\nname: pdf\ndescription: d\n---\n",
		"root/pdf/references/a.md":   "a",
		"root/pdf/.git/config":       "hidden",
		"root/pdf/.DS_Store":         "hidden",
		"root/pdf/scripts/run.sh":    "echo",
		"root/shared/inside.md":      "inside",
		"outside/secret.txt":         "secret",
		"outside/dir/also-secret.md": "secret",
	} {
		p := filepath.Join(dir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"root/pdf/inside-link.md": filepath.Join(root, "shared", "inside.md"),
		"root/pdf/secret-link":    filepath.Join(outside, "secret.txt"),
		"root/pdf/dir-link":       filepath.Join(outside, "dir"),
		"root/pdf/loop":           filepath.Join(root, "pdf"),
	} {
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	src := New(dir, nil, nil, Roots("root"))
	files, err := src.FolderFiles(context.Background(), filepath.Join(root, "pdf"))
	if err != nil {
		t.Fatal(err)
	}
	var rels []string
	for _, f := range files {
		rels = append(rels, f.Rel)
	}
	// The link inside the roots is a file of the skill; the one leading
	// out, the link to a directory (which could loop) and dot files are not.
	if want := []string{"SKILL.md", "inside-link.md", "references/a.md", "scripts/run.sh"}; !slices.Equal(rels, want) {
		t.Errorf("files = %q, want %q", rels, want)
	}
	if files[1].Size != int64(len("inside")) {
		t.Errorf("a link's size is its target's: %d", files[1].Size)
	}
}

func TestFolderFilesLimits(t *testing.T) {
	dir := t.TempDir()
	many := filepath.Join(dir, "root", "many")
	if err := os.MkdirAll(many, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range MaxFolderFiles + 1 {
		if err := os.WriteFile(filepath.Join(many, fmt.Sprintf("f%03d.md", i)), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src := New(dir, nil, nil, Roots("root"))
	if _, err := src.FolderFiles(context.Background(), many); !errors.Is(err, ErrFolderTooLarge) || !strings.Contains(err.Error(), "more than 512 files") {
		t.Errorf("513 files: %v", err)
	}
	if err := os.Remove(filepath.Join(many, "f000.md")); err != nil {
		t.Fatal(err)
	}
	if files, err := src.FolderFiles(context.Background(), many); err != nil || len(files) != MaxFolderFiles {
		t.Errorf("512 files: %d, %v", len(files), err)
	}
	big := filepath.Join(dir, "root", "big")
	if err := os.MkdirAll(big, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		f, err := os.Create(filepath.Join(big, fmt.Sprintf("part%d", i)))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(MaxFolderBytes/2 + 1); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if _, err := src.FolderFiles(context.Background(), big); !errors.Is(err, ErrFolderTooLarge) || !strings.Contains(err.Error(), "more than 16777216 bytes") {
		t.Errorf("over 16 MiB: %v", err)
	}
	// Empty directories count too: a folder of them is refused, not walked
	// forever.
	dirs := filepath.Join(dir, "root", "dirs")
	for i := range maxFolderEntries + 1 {
		if err := os.MkdirAll(filepath.Join(dirs, fmt.Sprintf("d%04d", i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := src.FolderFiles(context.Background(), dirs); !errors.Is(err, ErrFolderTooLarge) || !strings.Contains(err.Error(), "entries") {
		t.Errorf("%d empty directories: %v", maxFolderEntries+1, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := src.FolderFiles(ctx, many); err == nil {
		t.Error("a cancelled listing succeeded")
	}
}
