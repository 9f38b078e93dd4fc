package diagnostics

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/catalog/catalogtest"
)

// A body store that fell back to the heap says so in the report, with
// the reason and the bodies on the heap (docs/decisions.md D79); one in
// use adds nothing (the report's bytes are as before).
func TestDiagnoseReportsABodyStoreOnTheHeap(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{t.TempDir(), notDir} {
		store := catalog.OpenBodyStore(dir, nil)
		t.Cleanup(func() { store.Close() })
		skills := catalog.NewSkillsScope("skills", 1<<20)
		skills.UseBodyStore(store)
		skills.EndLoad([]json.RawMessage{
			json.RawMessage(`{"id":"a","skill":"# A\n","registered_at":"2026-12-02T00:00:00Z"}`),
			json.RawMessage(`{"id":"b","skill":"# Bee\n","registered_at":"2026-12-02T00:00:00Z"}`),
		})
		view := catalog.NewView(catalog.ViewConfig{Skills: skills, Caller: catalogtest.NewState(),
			SkillsScope: "skills", PromptsScope: "prompts", Timeout: time.Second})
		rep := New(Config{View: view}).Diagnose(t.Context())
		switch got := rep.Catalog.BodyStore; {
		case dir == notDir && !strings.Contains(got, "bodies kept in memory") || dir == notDir && !strings.Contains(got, notDir):
			t.Errorf("body_store = %q; want why the bodies are in memory, naming %s", got, notDir)
		case dir != notDir && got != "":
			t.Errorf("body_store = %q for a store in use; want it absent", got)
		}
		c := rep.Catalog
		if want := map[bool]int{true: 2}[dir == notDir]; c.HeapBodies != want || want > 0 && c.HeapBytes != c.Bytes || want == 0 && c.HeapBytes != 0 {
			t.Errorf("heap_bodies %d, heap_bytes %d of %d bytes; want %d bodies on the heap, all the bytes or none", c.HeapBodies, c.HeapBytes, c.Bytes, want)
		}
	}
}
