package search

import (
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/catalog/catalogtest"
	"github.com/iii-hq/skills-go/internal/fsource"
)

// A binary file of a root's skill folder (D69) is indexed by its id, so a
// search finds it by name, and it is not read again at every search: the
// index is current after the first.
func TestBinaryFileOfASkillFolderIsIndexedByItsID(t *testing.T) {
	dir := t.TempDir()
	catalogtest.WriteFiles(t, dir, map[string]string{
		"skills/brand/SKILL.md":              "---\nname: brand\ndescription: Brand guidelines.\n---\n# Brand\n\nUse the logo.\n",
		"skills/brand/assets/brand-logo.png": "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe",
	})
	skills := catalog.NewSkillsScope("skills", 1<<20)
	skills.BeginLoad()
	skills.EndLoad(nil)
	view := catalog.NewView(catalog.ViewConfig{Skills: skills, Caller: catalogtest.NewState(), SkillsScope: "skills",
		PromptsScope: "prompts", Timeout: 2 * time.Second, Source: fsource.New(dir, nil, nil, fsource.Roots("skills")), BodyCacheBytes: 1 << 20})
	s := NewSearcher(SearcherConfig{View: view})
	group := false
	out, err := s.Search(t.Context(), Request{Query: "brand logo png", Limit: 5, Group: &group})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range out.Results {
		found = found || r.ID == "brand/assets/brand-logo.png"
	}
	if !found {
		t.Errorf("search %+v: the binary file is not found by its name", out.Results)
	}
	if !s.keyValid {
		t.Error("the index is not current after a search: the binary file would be read again at the next one")
	}
}
