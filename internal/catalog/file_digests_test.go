package catalog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/fsource"
)

// digestFolder writes the skill folder root/pdf with files (relative
// path → bytes), each with the mtime given, and returns a view over the
// root and the folder's path.
func digestFolder(t *testing.T, files map[string]string, mtime time.Time) (*View, string) {
	t.Helper()
	dir := t.TempDir()
	folder := filepath.Join(dir, "root", "pdf")
	files[SkillFile] = "---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n"
	for rel, text := range files {
		writeFile(t, folder, rel, text)
		if err := os.Chtimes(filepath.Join(folder, rel), mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	return NewView(ViewConfig{Source: fsource.New(dir, nil, nil, fsource.Roots("root"))}), folder
}

// folderFile is the listed file rel of the folder, as the view lists it now.
func folderFile(t *testing.T, v *View, folder, rel string) FolderFile {
	t.Helper()
	files, err := v.FolderFiles(t.Context(), folder)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Rel == rel {
			return f
		}
	}
	t.Fatalf("%s is not listed in %s: %+v", rel, folder, files)
	return FolderFile{}
}

func checkDigest(t *testing.T, v *View, f FolderFile, text string) {
	t.Helper()
	sum, size, err := v.FileDigest(f)
	if err != nil || sum != sha256Hex([]byte(text)) || size != int64(len(text)) {
		t.Errorf("FileDigest(%s) = %s, %d, %v; want %s, %d", f.Rel, sum, size, err, sha256Hex([]byte(text)), len(text))
	}
}

// The view gives a folder file's digest per change key: the file is read
// once per Stamp, read again when the stamp moves, and not kept while it
// was written within the racy window (docs/decisions.md D41, D68).
func TestFileDigestIsReadOncePerStamp(t *testing.T) {
	old := time.Now().Add(-time.Hour)
	v, folder := digestFolder(t, map[string]string{"references/forms.md": "# Forms\n"}, old)
	forms := folderFile(t, v, folder, "references/forms.md")
	checkDigest(t, v, forms, "# Forms\n")
	if err := os.Remove(forms.Path); err != nil {
		t.Fatal(err)
	}
	checkDigest(t, v, forms, "# Forms\n") // kept under its stamp: not read again

	writeFile(t, folder, "references/forms.md", "# Forms, edited and longer\n")
	edited := folderFile(t, v, folder, "references/forms.md")
	checkDigest(t, v, edited, "# Forms, edited and longer\n") // a new stamp: read again
	if err := os.Remove(edited.Path); err != nil {
		t.Fatal(err)
	}
	if _, _, err := v.FileDigest(edited); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("digest of a file written just now, since removed: %v; want not-exist (it is not kept)", err)
	}
}

// A file is read for its digest through the view's checked read: one
// that leads out of its root since it was listed is refused.
func TestFileDigestRefusesAFileThatLeftItsRoot(t *testing.T) {
	v, folder := digestFolder(t, map[string]string{"forms.md": "# Forms\n"}, time.Now().Add(-time.Hour))
	forms := folderFile(t, v, folder, "forms.md")
	secret := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(secret, []byte("API_KEY=x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(forms.Path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, forms.Path); err != nil {
		t.Fatal(err)
	}
	if sum, _, err := v.FileDigest(forms); !errors.Is(err, ErrEscaped) {
		t.Errorf("digest of a file swapped for a link out of its root = %q, %v; want ErrEscaped", sum, err)
	}
}

// The digests the view keeps stay bounded when they are asked for
// without listings (skills/get of many skills, none listed), and every
// digest a listing asked for is kept for the next: a listing whose files
// were all kept, then one where a file changed, read only that file
// (docs/decisions.md D64).
func TestFileDigestsStayBoundedWithoutListings(t *testing.T) {
	const least, n = 4, 20
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("f%02d.md", i)] = fmt.Sprintf("# File %d\n", i)
	}
	old := time.Now().Add(-time.Hour)
	v, folder := digestFolder(t, files, old)
	v.fileDigests = newGenerations[keptDigest](least)
	list := func() []FolderFile {
		t.Helper()
		listed, err := v.FolderFiles(t.Context(), folder)
		if err != nil {
			t.Fatal(err)
		}
		return listed
	}
	listing := func() []FolderFile { // as skills/list asks: every file, then a turn
		t.Helper()
		listed := list()
		for _, f := range listed {
			if _, _, err := v.FileDigest(f); err != nil {
				t.Fatal(err)
			}
		}
		v.TurnFileDigests()
		return listed
	}
	for _, f := range list() {
		if _, _, err := v.FileDigest(f); err != nil {
			t.Fatal(err)
		}
	}
	if got := v.fileDigests.Len(); got > 2*least {
		t.Errorf("%d digests kept after %d files asked for once; want at most %d", got, n+1, 2*least)
	}
	for range 3 { // from the second on, every digest kept
		listing()
	}
	files["f07.md"] = "# File 7, edited\n"
	writeFile(t, folder, "f07.md", files["f07.md"])
	if err := os.Chtimes(filepath.Join(folder, "f07.md"), old, old); err != nil {
		t.Fatal(err)
	}
	listed := listing() // one file read again
	for _, f := range listed {
		if err := os.Remove(f.Path); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range listed {
		checkDigest(t, v, f, files[f.Rel]) // kept from the last listing: not read
	}
}
