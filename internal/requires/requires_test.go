package requires

import (
	"slices"
	"strings"
	"testing"
)

func TestOfReadsLinksAndBothFrontmatterForms(t *testing.T) {
	text := `---
name: refunds
description: Refund an order.
requires:
  functions: [acme::refund, "billing.v2::charge"]
  skills: [billing/policy]
metadata:
  iii-requires-functions: "acme::status, acme::refund"
  iii-requires-skills: billing/ledger
  author: someone
---
# Refunds

Check [the status](iii://fn/acme/status) first, then iii://fn/acme/ledger/read.
A template such as iii://fn/{function_path} is not a link.
`
	s := Of(text)
	if s == nil {
		t.Fatal("Of found nothing")
	}
	if want := []string{"acme::ledger::read", "acme::refund", "acme::status", "billing.v2::charge"}; !slices.Equal(s.Functions, want) {
		t.Errorf("functions = %q, want %q", s.Functions, want)
	}
	if want := []string{"billing/ledger", "billing/policy"}; !slices.Equal(s.Skills, want) {
		t.Errorf("skills = %q, want %q", s.Skills, want)
	}
	if len(s.Problems) != 0 {
		t.Errorf("problems = %q, want none", s.Problems)
	}
}

func TestOfIsNilForASkillThatRequiresNothing(t *testing.T) {
	for _, text := range []string{
		"# Plain\n\nNo links here, only iii://other-skill.\n",
		"---\nname: x\ndescription: y\nmetadata:\n  author: z\n---\n# X\n",
		"---\nrequires:\n---\n# X\n",
	} {
		if s := Of(text); s != nil {
			t.Errorf("Of(%q) = %+v, want nil", text, s)
		}
	}
}

func TestBadEntriesAreProblemsNamingThemAndTheRestCount(t *testing.T) {
	text := `---
requires:
  functions: [acme::status, "has space", 7, "", "a::::b"]
  skills: [ok/skill, "fn/reserved", "Bad/Case"]
  tools: [x]
metadata:
  iii-requires-skills: [not, a, string]
---
# X
`
	s := Of(text)
	if !slices.Equal(s.Functions, []string{"acme::status"}) || !slices.Equal(s.Skills, []string{"ok/skill"}) {
		t.Fatalf("kept functions %q skills %q", s.Functions, s.Skills)
	}
	all := strings.Join(s.Problems, "\n")
	for _, want := range []string{
		"`requires.functions[1]` must be a function id", `"has space"`,
		"`requires.functions[2]` must be a string, a function id, got",
		"`requires.functions[3]` must be a function id of 1 to 256 bytes",
		"`requires.functions[4]`", `"a::::b"`,
		"`requires.skills[1]` is not a skill id", "`requires.skills[2]` is not a skill id",
		"`requires.tools` is not read",
		"`metadata.iii-requires-skills` must be a string of skill ids",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("problems lack %q:\n%s", want, all)
		}
	}
	if len(s.Problems) != 8 {
		t.Errorf("%d problems, want 8:\n%s", len(s.Problems), all)
	}
}

func TestRequiresThatIsNotAMappingIsAProblem(t *testing.T) {
	s := Of("---\nrequires: acme::status\n---\n# X\n")
	if s == nil || len(s.Problems) != 1 || !strings.Contains(s.Problems[0], "`requires` must be a mapping") {
		t.Fatalf("got %+v", s)
	}
}

func TestEntriesAreBounded(t *testing.T) {
	var b strings.Builder
	for i := range 3 * MaxEntries {
		b.WriteString("iii://fn/f/n")
		b.WriteString(strings.Repeat("x", i%50+1))
		b.WriteString("\n")
	}
	s := Of(b.String())
	if len(s.Functions) > MaxEntries || len(s.Functions) == 0 {
		t.Fatalf("%d functions kept, want 1..%d", len(s.Functions), MaxEntries)
	}
}

func TestCheckFunctionID(t *testing.T) {
	for id, ok := range map[string]bool{"acme::status": true, "echo": true, "api.v2::Get-x": true,
		"": false, "a b": false, "a::": false, "::a": false, "a/b": false, strings.Repeat("a", 257): false} {
		if got := CheckFunctionID(id) == ""; got != ok {
			t.Errorf("CheckFunctionID(%q) ok = %v, want %v", id, got, ok)
		}
	}
}

func FuzzOf(f *testing.F) {
	f.Add("---\nrequires:\n  functions: [a::b]\n---\niii://fn/a/b")
	f.Add("iii://fn/")
	f.Fuzz(func(t *testing.T, text string) {
		s := Of(text)
		if s == nil {
			return
		}
		for _, id := range s.Functions {
			if CheckFunctionID(id) != "" {
				t.Fatalf("kept invalid function %q", id)
			}
		}
		if !slices.IsSorted(s.Functions) || !slices.IsSorted(s.Skills) {
			t.Fatal("unsorted")
		}
	})
}

// BenchmarkOf is what reading a skill's requirements adds to every
// MetaOf (a registration, a file's first listing): a 4 KiB body with no
// link and no declaration, and one with both.
func BenchmarkOf(b *testing.B) {
	plain := ("# Email provider\n\n" + strings.Repeat("- step: call the function with the recipient, subject and body; check the result.\n", 50))[:4096]
	linked := "---\nname: refunds\nrequires:\n  functions: [acme::refund]\n---\n" + plain[:4000] + "\niii://fn/acme/status\n"
	for _, c := range []struct{ name, text string }{{"plain", plain}, {"declared-and-linked", linked}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Of(c.text)
			}
		})
	}
}
