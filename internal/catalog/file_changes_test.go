package catalog

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/catalog/catalogtest"
	"github.com/iii-hq/skills-go/internal/fsource"
)

// rewrite writes text to dir's rel with the mtime at, so that each
// write moves the file's Stamp whatever the clock's resolution.
func rewrite(t *testing.T, dir, rel, text string, at time.Time) {
	t.Helper()
	writeFile(t, dir, rel, text)
	if err := os.Chtimes(filepath.Join(dir, rel), at, at); err != nil {
		t.Fatal(err)
	}
}

// listPath lists the view and returns the path of the file serving id.
func listPath(t *testing.T, v *View, id string) string {
	t.Helper()
	l, err := v.Skills(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	s, ok := l.Skill(id)
	if !ok || s.Origin != OriginFS {
		t.Fatalf("%s is not served from a file: %+v", id, l.Skills)
	}
	return s.File.Path
}

// A served skill file rewritten with new content is one change with
// both digests; touching it, or rewriting the same bytes, is none
// (docs/decisions.md D86).
func TestFileChangesRecordADigestChangeOnce(t *testing.T) {
	dir := t.TempDir()
	base := time.Now().Add(-time.Hour)
	first, second := "# Alpha\n\nFirst.\n", "# Alpha\n\nThe second text.\n"
	rewrite(t, dir, "skills/alpha.md", first, base)
	rewrite(t, dir, "skills/beta.md", "# Beta\n", base)
	v := newFileView(t, catalogtest.NewState(), dir)
	path := listPath(t, v, "alpha")
	if got, omitted := v.FileChanges(); len(got) != 0 || omitted != 0 {
		t.Fatalf("after the first listing: %+v, %d omitted; want none (a new file is not a change)", got, omitted)
	}

	before := time.Now()
	rewrite(t, dir, "skills/alpha.md", second, base.Add(time.Minute))
	listPath(t, v, "alpha")
	listPath(t, v, "alpha") // the same scan again changes nothing
	got, omitted := v.FileChanges()
	if len(got) != 1 || omitted != 0 {
		t.Fatalf("FileChanges = %+v, %d omitted; want one change", got, omitted)
	}
	at, err := time.Parse(timestampLayout, got[0].At)
	if err != nil || at.Before(before.Add(-time.Second)) || at.After(time.Now().Add(time.Second)) {
		t.Errorf("at = %q (%v), want the time of the listing in the D11 layout", got[0].At, err)
	}
	want := FileChange{ID: "alpha", Path: path,
		PreviousSHA256: sha256Hex([]byte(first)), PreviousBytes: int64(len(first)),
		SHA256: sha256Hex([]byte(second)), Bytes: int64(len(second)), At: got[0].At}
	if got[0] != want {
		t.Errorf("change = %+v\nwant %+v", got[0], want)
	}

	// A touch, and the same bytes written again, move the Stamp only.
	if err := os.Chtimes(path, base.Add(2*time.Minute), base.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	listPath(t, v, "alpha")
	rewrite(t, dir, "skills/alpha.md", second, base.Add(3*time.Minute))
	listPath(t, v, "alpha")
	if got, _ := v.FileChanges(); len(got) != 1 {
		t.Errorf("after a touch and a rewrite of the same bytes: %d changes, want still 1: %+v", len(got), got)
	}
}

// The record keeps the newest KeptFileChanges changes, newest first,
// and counts the older ones.
func TestFileChangesAreBounded(t *testing.T) {
	dir := t.TempDir()
	base := time.Now().Add(-time.Hour)
	text := func(i int) string { return "# Alpha\n\nVersion " + strconv.Itoa(i) + ".\n" }
	rewrite(t, dir, "skills/alpha.md", text(0), base)
	v := newFileView(t, catalogtest.NewState(), dir)
	listPath(t, v, "alpha")
	const writes = KeptFileChanges + 7
	for i := 1; i <= writes; i++ {
		rewrite(t, dir, "skills/alpha.md", text(i), base.Add(time.Duration(i)*time.Second))
		listPath(t, v, "alpha")
	}
	got, omitted := v.FileChanges()
	if len(got) != KeptFileChanges || omitted != writes-KeptFileChanges {
		t.Fatalf("kept %d, omitted %d; want %d and %d", len(got), omitted, KeptFileChanges, writes-KeptFileChanges)
	}
	newest, oldest := got[0], got[len(got)-1]
	if newest.SHA256 != sha256Hex([]byte(text(writes))) || newest.PreviousSHA256 != sha256Hex([]byte(text(writes-1))) {
		t.Errorf("newest = %+v, want version %d after %d", newest, writes, writes-1)
	}
	if first := writes - KeptFileChanges + 1; oldest.SHA256 != sha256Hex([]byte(text(first))) {
		t.Errorf("oldest kept = %+v, want version %d", oldest, first)
	}
}

// A listing built from an older scan than the last compared one is not
// compared: it would record the change back.
func TestFileChangesIgnoreAnOlderScan(t *testing.T) {
	c := newFileChanges()
	files := []fsource.Skill{{ID: "alpha", Path: "/skills/alpha.md"}}
	c.note(2, files, []Meta{{SHA256: "b", Size: 2}})
	c.note(1, files, []Meta{{SHA256: "a", Size: 1}})
	c.note(3, files, []Meta{{SHA256: "", Size: 0}}) // unreadable: keeps b
	c.note(4, files, []Meta{{SHA256: "b", Size: 2}})
	if got := c.ring; len(got) != 0 {
		t.Errorf("changes = %+v, want none", got)
	}
}

// A file no longer served is forgotten: served again with other bytes,
// it is a new file, not a change; what is kept is the files served.
func TestFileChangesForgetFilesNoLongerServed(t *testing.T) {
	c := newFileChanges()
	both := []fsource.Skill{{ID: "alpha", Path: "/skills/alpha.md"}, {ID: "beta", Path: "/skills/beta.md"}}
	c.note(1, both, []Meta{{SHA256: "a1", Size: 2}, {SHA256: "b1", Size: 2}})
	c.note(2, both[:1], []Meta{{SHA256: "a1", Size: 2}})
	if len(c.seen) != 1 {
		t.Errorf("after beta went: %d paths kept, want 1", len(c.seen))
	}
	c.note(3, both, []Meta{{SHA256: "a2", Size: 2}, {SHA256: "b2", Size: 2}})
	if len(c.ring) != 1 || c.ring[0].ID != "alpha" || c.ring[0].PreviousSHA256 != "a1" || c.ring[0].SHA256 != "a2" {
		t.Errorf("changes = %+v, want alpha's alone", c.ring)
	}
}

// BenchmarkFileChangesNote is the record's cost on a listing built from
// a new file scan of 5,000 served files, none changed: what a rescan
// adds to merge (docs/decisions.md D86).
func BenchmarkFileChangesNote(b *testing.B) {
	const n = 5000
	files, metas := make([]fsource.Skill, n), make([]Meta, n)
	for i := range files {
		files[i] = fsource.Skill{ID: "s" + strconv.Itoa(i), Path: "/skills/s" + strconv.Itoa(i) + ".md"}
		metas[i] = Meta{SHA256: sha256Hex([]byte(files[i].Path)), Size: 100}
	}
	c := newFileChanges()
	c.note(0, files, metas)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		c.note(uint64(i+1), files, metas)
	}
}
