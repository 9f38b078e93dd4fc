package mcpskills

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/catalog/catalogtest"
	"github.com/iii-hq/skills-go/internal/fsource"
)

// BenchmarkMCPSkillsListFolders measures skills/list over 200 skill
// folders of 25 files each under a root (5,000 files, none changed since
// the last listing): every file's digest comes from the view's
// per-Stamp cache (View.FileDigest, docs/decisions.md D68), so the time
// is the scan, the folder listings and the entries.
//
//	go test -run '^$' -bench MCPSkillsListFolders -benchtime 20x -count 3 ./internal/mcpskills/
func BenchmarkMCPSkillsListFolders(b *testing.B) {
	const skills, perSkill = 200, 25
	dir := b.TempDir()
	files := map[string]string{}
	for s := range skills {
		folder := fmt.Sprintf("root/s%03d/", s)
		files[folder+"SKILL.md"] = fmt.Sprintf("---\nname: s%03d\ndescription: Skill %d.\n---\n# Skill %d\n", s, s, s)
		for i := 1; i < perSkill; i++ {
			files[fmt.Sprintf("%sreferences/r%02d.md", folder, i)] = fmt.Sprintf("# Reference %d\n\nSome text.\n", i)
		}
	}
	catalogtest.WriteFiles(b, dir, files)
	old := time.Now().Add(-time.Hour) // settled: digests are kept
	for rel := range files {
		if err := os.Chtimes(filepath.Join(dir, rel), old, old); err != nil {
			b.Fatal(err)
		}
	}
	f := newFixture(b, fsource.New(dir, nil, nil, fsource.Roots("root")))
	out, err := f.ext.mcpSkillsList(f.ctx, mcpSkillsListInput{})
	if err != nil || len(out.Skills) != skills || len(out.Skills[0].Resources) != perSkill {
		b.Fatalf("the first listing: %d skills, %v", len(out.Skills), err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := f.ext.mcpSkillsList(f.ctx, mcpSkillsListInput{}); err != nil {
			b.Fatal(err)
		}
	}
}
