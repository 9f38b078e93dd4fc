package diagnostics

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/catalog/catalogtest"
)

// A body store that fell back to the heap says so in the report, with
// the reason; one in use adds nothing (the report's bytes are as before).
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
		view := catalog.NewView(catalog.ViewConfig{Skills: skills, Caller: catalogtest.NewState(),
			SkillsScope: "skills", PromptsScope: "prompts", Timeout: time.Second})
		rep := New(Config{View: view}).Diagnose(t.Context())
		switch got := rep.Catalog.BodyStore; {
		case dir == notDir && !strings.Contains(got, "bodies kept in memory") || dir == notDir && !strings.Contains(got, notDir):
			t.Errorf("body_store = %q; want why the bodies are in memory, naming %s", got, notDir)
		case dir != notDir && got != "":
			t.Errorf("body_store = %q for a store in use; want it absent", got)
		}
	}
}
