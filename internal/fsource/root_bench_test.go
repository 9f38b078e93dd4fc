package fsource

import (
	"fmt"
	"testing"
)

// BenchmarkRootScan lists a root of 500 skill folders, 5,000 files in
// all: per folder a SKILL.md, three lower-case references, two with
// capitals and four files that are not markdown (D69 serves them all;
// before it, only the six markdown files whose ids were valid).
func BenchmarkRootScan(b *testing.B) {
	files := map[string]string{}
	for i := range 500 {
		name := fmt.Sprintf("skill-%03d", i)
		files["r/"+name+"/SKILL.md"] = skillMD(name, "Skill "+name+".", "# "+name+"\n")
		for _, rel := range []string{"references/a.md", "references/b.md", "references/c.md", "README.md",
			"references/API_REFERENCE.md", "scripts/run.py", "scripts/fill.sh", "assets/template.json", "LICENSE.txt"} {
			files["r/"+name+"/"+rel] = "# " + rel + "\n\nText.\n"
		}
	}
	src := New(writeTree(b, files), nil, nil, Roots("r"))
	for b.Loop() {
		skills, _ := src.Skills()
		if len(skills) < 500*4 { // main listed four of each folder
			b.Fatalf("%d skills", len(skills))
		}
	}
}
