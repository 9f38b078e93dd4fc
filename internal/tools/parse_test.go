package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func parseFile(t *testing.T, name string) (Skill, []string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "seed", name))
	if err != nil {
		t.Fatal(err)
	}
	s, warnings, err := Parse(src)
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return s, warnings
}

// toolShape is what a test compares of a tool: its name, description,
// parameters and command words as written.
type toolShape struct {
	Name, Description string
	Params            []Param
	Words             []string
}

func shapes(tools []Tool) []toolShape {
	out := make([]toolShape, len(tools))
	for i, tl := range tools {
		var words []string
		for _, w := range tl.Command.Words {
			var b strings.Builder
			for _, f := range w {
				if f.Param == "" {
					b.WriteString(f.Literal)
				} else if f.HasMod {
					b.WriteString("{{" + f.Param + ":" + f.Modifier + "}}")
				} else {
					b.WriteString("{{" + f.Param + "}}")
				}
			}
			words = append(words, b.String())
		}
		out[i] = toolShape{Name: tl.Name, Description: tl.Description, Params: tl.Params, Words: words}
	}
	return out
}

// The seed's three examples (§8) parse to the tools, parameters and
// commands it shows.
func TestParseTheSeedExamples(t *testing.T) {
	git, warnings := parseFile(t, "git.md")
	if git.Name != "git" || git.Version != "1.0.0" || git.Timeout != DefaultTimeout || git.ReadOnly || git.Network {
		t.Errorf("git frontmatter = %+v", git)
	}
	want := []toolShape{
		{Name: "git_status", Description: "Show the current git status with short format.", Params: []Param{},
			Words: []string{"git", "status", "--short", "--branch"}},
		{Name: "git_log", Description: "Show recent commit history.",
			Params: []Param{{Name: "count", Type: TypeInteger, Description: "Number of commits (default: 10)", Default: int64(10)}},
			Words:  []string{"git", "log", "--oneline", "-n", "{{count}}"}},
		{Name: "git_diff", Description: "Show uncommitted changes.",
			Params: []Param{{Name: "staged", Type: TypeBoolean, Description: "Show only staged changes"}},
			Words:  []string{"git", "diff", "{{staged:--staged}}"}},
	}
	if diff := cmp.Diff(want, shapes(git.Tools), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("git tools (-want +got):\n%s", diff)
	}
	// "author" and "modes" are the seed's own fields, known; "Parameters:
	// None." is a parameters section without a table.
	if len(warnings) != 0 {
		t.Errorf("git warnings = %q, want none", warnings)
	}

	sum, _ := parseFile(t, "summarize.md")
	if !sum.ReadOnly || !sum.Network || sum.Timeout != 60*time.Second {
		t.Errorf("summarize frontmatter = %+v", sum)
	}
	want = []toolShape{{Name: "summarize_url", Description: "Fetch and summarize a webpage.",
		Params: []Param{{Name: "url", Type: TypeString, Required: true, Description: "The URL to summarize"}},
		Words:  []string{"npx", "@anthropic-ai/summarize", "{{url}}"}}}
	if diff := cmp.Diff(want, shapes(sum.Tools)); diff != "" {
		t.Errorf("summarize tools (-want +got):\n%s", diff)
	}

	deploy, _ := parseFile(t, "deploy.md")
	if !deploy.AlwaysAsk || deploy.ReadOnly || deploy.Timeout != 120*time.Second {
		t.Errorf("deploy frontmatter = %+v", deploy)
	}
	want = []toolShape{{Name: "deploy_preview", Description: "Deploy a preview build to Vercel.",
		Params: []Param{{Name: "message", Type: TypeString, Description: "Deployment message"}},
		Words:  []string{"./scripts/deploy.sh", "preview", "{{message}}"}}}
	if diff := cmp.Diff(want, shapes(deploy.Tools)); diff != "" {
		t.Errorf("deploy tools (-want +got):\n%s", diff)
	}
}

// The seed's examples build the argument lists its §3.4 and §3.5 describe.
func TestSeedExampleArguments(t *testing.T) {
	git, _ := parseFile(t, "git.md")
	log, diff := git.Tools[1], git.Tools[2]
	for _, c := range []struct {
		tool Tool
		args string
		want []string
	}{
		{log, `{"count": 5}`, []string{"log", "--oneline", "-n", "5"}},
		{log, `{}`, []string{"log", "--oneline", "-n", "10"}}, // the described default
		{diff, `{"staged": true}`, []string{"diff", "--staged"}},
		{diff, `{"staged": false}`, []string{"diff"}},
		{diff, `{}`, []string{"diff"}},
	} {
		values, err := Check(c.tool.Params, []byte(c.args))
		if err != nil {
			t.Fatalf("%s %s: %v", c.tool.Name, c.args, err)
		}
		got, err := c.tool.Command.Args(c.tool.Params, values)
		if err != nil || !cmp.Equal(got, c.want, cmpopts.EquateEmpty()) {
			t.Errorf("%s %s: args %q, %v, want %q", c.tool.Name, c.args, got, err, c.want)
		}
	}
}

const front = "---\nname: t\nversion: 1.0.0\ndescription: A test skill.\n---\n"

// Every fatal error of the seed's §9.1 (and the malformed blocks of the
// issue's bad input) skips the skill's tools with a reason that says what
// is wrong.
func TestParseErrors(t *testing.T) {
	tool := func(body string) string { return front + "\n### run\n\nRuns it.\n\n" + body }
	cmdBlock := "#### Command\n\n```\necho hi\n```\n"
	table := "#### Parameters\n\n| Name | Type | Required | Description |\n|---|---|---|---|\n"
	for _, c := range []struct {
		name, src, want string
	}{
		{"no frontmatter", "### run\n", "no YAML frontmatter"},
		{"invalid YAML", "---\nname: [unclosed\n---\n", "invalid YAML frontmatter"},
		{"missing version", "---\nname: t\ndescription: d\n---\n### run\n\n" + cmdBlock, `frontmatter field version is required for a skill with tools (this one has run): add a line such as "version: 1.0.0" to the --- block at the top`},
		{"missing description", "---\nname: t\nversion: 1\n---\n### run\n\n" + cmdBlock, "frontmatter field description is required"},
		{"missing name", "---\nversion: 1\ndescription: d\n---\n### run\n\n" + cmdBlock, "frontmatter field name is required"},
		{"duplicate tools", tool(cmdBlock + "\n### run\n\nAgain.\n\n" + cmdBlock), "duplicate tool name run"},
		{"no command", tool(table + "| a | string | yes | A. |\n"), "tool run has no command"},
		{"empty command", tool("#### Command\n\n```\n\n```\n"), "the command code block is empty"},
		{"two-line command", tool("#### Command\n\n```\necho a\necho b\n```\n"), "has 2 lines"},
		{"unknown type", tool(table + "| a | map | yes | A. |\n\n" + cmdBlock), `unknown type "map"`},
		{"unterminated quote", tool("#### Command\n\n```\necho \"open\n```\n"), "EOF found when expecting closing quote"},
		{"bad tool name", front + "\n### Run-It\n\n" + cmdBlock, `tool name "Run-It"`},
		{"unknown placeholder", tool("#### Command\n\n```\necho {{who}}\n```\n"), "uses {{who}}, which is not one of its parameters"},
		{"placeholder program", tool(table + "| a | string | yes | A. |\n\n#### Command\n\n```\n{{a}} x\n```\n"), "the program (first word) must be literal"},
		{"bad required", tool(table + "| a | string | maybe | A. |\n\n" + cmdBlock), `Required is "maybe"`},
		{"missing column", tool("#### Parameters\n\n| Name | Type |\n|---|---|\n| a | string |\n\n" + cmdBlock), "no required column"},
		{"bad default", tool("#### Parameters\n\n| Name | Type | Required | Description | Default |\n|---|---|---|---|---|\n| n | integer | no | N. | ten |\n\n" + cmdBlock), `default "ten" is not an integer`},
		{"bad leading dash", tool("#### Parameters\n\n| Name | Type | Required | Description | Leading dash |\n|---|---|---|---|---|\n| a | string | no | A. | sometimes |\n\n" + cmdBlock), `parameter a: Leading dash is "sometimes"; write yes (a value may begin with -) or no`},
		{"timeout too long", "---\nname: t\nversion: 1\ndescription: d\ntimeout: 301\n---\n### run\n\n" + cmdBlock, "timeout 301 is out of range"},
		{"broken placeholder", tool("#### Command\n\n```\necho {{a b}}\n```\n"), "a placeholder is written {{name}}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Parse([]byte(c.src))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Parse error = %v, want one containing %q", err, c.want)
			}
		})
	}
}

// The seed's §9.2 warnings and D31's checks do not stop the tools.
func TestParseWarnings(t *testing.T) {
	src := "---\nname: Bad_Name\nversion: 1\ndescription: d\nflavour: sweet\n---\n\n### run\n\n" +
		strings.Repeat("word ", 60) + "\n\n#### Command\n\n```\necho hi\n```\n"
	s, warnings, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tools) != 1 || len([]rune(s.Tools[0].Description)) != 256 {
		t.Errorf("tools = %+v, want one with its description cut to 256", s.Tools)
	}
	for _, want := range []string{`unknown frontmatter field "flavour"`, `name "Bad_Name"`, "no #### Parameters section", "description cut to 256"} {
		if !strings.Contains(strings.Join(warnings, "\n"), want) {
			t.Errorf("warnings %q lack %q", warnings, want)
		}
	}
}

// The optional Leading dash column lets a parameter's values begin with
// "-"; without it, or when blank, they may not. The sha256 approval
// covers the column like any other text.
func TestParseLeadingDash(t *testing.T) {
	src := front + "\n### grep\n\nSearch.\n\n#### Parameters\n\n| Name | Type | Required | Description | Leading dash |\n|---|---|---|---|---|\n" +
		"| pattern | string | yes | A pattern. | yes |\n| path | string | no | Where. | |\n| n | integer | no | N. | no |\n\n#### Command\n\n```\ngrep -e {{pattern}} {{path}}\n```\n"
	s, _, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, p := range s.Tools[0].Params {
		got[p.Name] = p.LeadingDash
	}
	if diff := cmp.Diff(map[string]bool{"pattern": true, "path": false, "n": false}, got); diff != "" {
		t.Errorf("LeadingDash (-want +got):\n%s", diff)
	}
	values, err := Check(s.Tools[0].Params, []byte(`{"pattern": "-v", "path": "-r"}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Tools[0].Command.Args(s.Tools[0].Params, values); err == nil || !strings.HasPrefix(err.Error(), `parameter path: the value "-r" begins with "-"`) {
		t.Errorf("a dash in path: %v", err)
	}
	delete(values, "path")
	if args, err := s.Tools[0].Command.Args(s.Tools[0].Params, values); err != nil || !cmp.Equal(args, []string{"-e", "-v"}) {
		t.Errorf("a dash in pattern: %q, %v", args, err)
	}
}

// A SKILL.md without tool blocks is a plain skill: H3 headings that
// have neither Parameters nor Command are prose.
func TestParsePlainSkill(t *testing.T) {
	s, _, err := Parse([]byte("---\nname: notes\ndescription: Notes.\n---\n# Notes\n\n### Usage\n\nRead it.\n"))
	if err != nil || len(s.Tools) != 0 || s.Name != "notes" {
		t.Errorf("Parse = %+v, %v; want a skill without tools", s, err)
	}
}
