package links_test

import (
	"fmt"

	"github.com/iii-hq/skills-go/internal/links"
)

// The links a SKILL.md of the skill wshobson/team-communication-protocols
// writes, and the iii:// and skill:// URIs they name.
func ExampleDoc_Resolve() {
	doc := links.Doc{Path: "wshobson/team-communication-protocols", Folder: true, SkillDir: "wshobson/team-communication-protocols"}
	for _, link := range []string{
		"references/messaging.md",
		"./references/messaging.md#handoffs",
		"../team-composition-patterns/SKILL.md",
		"../team-composition-patterns/",
		"{baseDir}/scripts/check.py",
		"#when-to-use",
		"../../../outside.md",
	} {
		t, err := doc.Resolve(link)
		if err != nil {
			fmt.Printf("%-40s error: %v\n", link, err)
			continue
		}
		fmt.Printf("%-40s iii://%s  skill://%s\n", link, t.IIIKey(), t.FilePath())
	}
	// Output:
	// references/messaging.md                  iii://wshobson/team-communication-protocols/references/messaging.md  skill://wshobson/team-communication-protocols/references/messaging.md
	// ./references/messaging.md#handoffs       iii://wshobson/team-communication-protocols/references/messaging.md  skill://wshobson/team-communication-protocols/references/messaging.md
	// ../team-composition-patterns/SKILL.md    iii://wshobson/team-composition-patterns  skill://wshobson/team-composition-patterns/SKILL.md
	// ../team-composition-patterns/            iii://wshobson/team-composition-patterns  skill://wshobson/team-composition-patterns/SKILL.md
	// {baseDir}/scripts/check.py               iii://wshobson/team-communication-protocols/scripts/check.py  skill://wshobson/team-communication-protocols/scripts/check.py
	// #when-to-use                             iii://wshobson/team-communication-protocols  skill://wshobson/team-communication-protocols/SKILL.md
	// ../../../outside.md                      error: its .. goes above the registry root
}

// A link in a reference file is relative to the folder that holds the
// file; {baseDir} is still the skill's folder.
func ExampleDoc_Resolve_referenceFile() {
	doc := links.Doc{Path: "pdf/references/forms.md", SkillDir: "pdf"}
	for _, link := range []string{"fields.md", "../SKILL.md", "{baseDir}/scripts/fill.py", "#top"} {
		t, _ := doc.Resolve(link)
		fmt.Printf("%s -> iii://%s\n", link, t.IIIKey())
	}
	// Output:
	// fields.md -> iii://pdf/references/fields.md
	// ../SKILL.md -> iii://pdf
	// {baseDir}/scripts/fill.py -> iii://pdf/scripts/fill.py
	// #top -> iii://pdf/references/forms.md
}

// A URI written by joining a link to its skill's URI reads as the link
// resolved.
func ExampleClean() {
	for _, p := range []string{
		"pdf/./references/forms.md",
		"team/a/../b/SKILL.md",
		"pdf/{baseDir}/scripts/fill.py",
		"pdf/forms.md#fields",
		"a/%2e%2e/b",
	} {
		t, err := links.Clean(p)
		if err != nil {
			fmt.Printf("%s: error: %v\n", p, err)
			continue
		}
		fmt.Printf("%s -> iii://%s\n", p, t.IIIKey())
	}
	// Output:
	// pdf/./references/forms.md -> iii://pdf/references/forms.md
	// team/a/../b/SKILL.md -> iii://team/b
	// pdf/{baseDir}/scripts/fill.py -> iii://pdf/scripts/fill.py
	// pdf/forms.md#fields -> iii://pdf/forms.md
	// a/%2e%2e/b: error: it holds a percent-encoded /, \, . or NUL (%2F, %5C, %2E, %00); write them as they are, or not at all
}
