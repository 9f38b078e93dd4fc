package links

import "testing"

// What a read pays for the rule: the check every iii:// read makes, on
// a plain id and on a URI written as a link, and resolving a link.
func BenchmarkNeedsCleaning(b *testing.B) {
	for _, uri := range []string{"wshobson/team-communication-protocols/references/messaging", "wshobson/team-communication-protocols/../team-composition-patterns/SKILL.md"} {
		b.Run(uri[len(uri)-9:], func(b *testing.B) {
			for b.Loop() {
				NeedsCleaning(uri)
			}
		})
	}
}

func BenchmarkResolve(b *testing.B) {
	doc := Doc{Path: "wshobson/team-communication-protocols", Folder: true, SkillDir: "wshobson/team-communication-protocols"}
	for b.Loop() {
		if _, err := doc.Resolve("../team-composition-patterns/SKILL.md#roles"); err != nil {
			b.Fatal(err)
		}
	}
}
