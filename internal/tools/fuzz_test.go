package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse: no SKILL.md makes the parser panic or hang, and what it
// accepts is usable: every tool has a name, a literal program and only
// placeholders of its own parameters.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"git.md", "summarize.md", "deploy.md"} {
		if src, err := os.ReadFile(filepath.Join("testdata", "seed", name)); err == nil {
			f.Add(src)
		}
	}
	f.Add([]byte(front + "### run\n\n#### Parameters\n\n| Name | Type | Required | Description | Default |\n|-|-|-|-|-|\n| a | array | no | A (default: x, y) | |\n\n#### Command\n\n```\necho {{a}} '{{a:z}}'\n```\n"))
	f.Add([]byte("---\nname: [\n---\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		s, _, err := Parse(src)
		if err != nil {
			return
		}
		for _, tl := range s.Tools {
			if tl.Name == "" || tl.Command.Program() == "" {
				t.Fatalf("accepted a tool without a name or program: %+v", tl)
			}
			names := map[string]bool{}
			for _, p := range tl.Params {
				names[p.Name] = true
			}
			for _, used := range tl.Command.Params() {
				if !names[used] {
					t.Fatalf("tool %s uses {{%s}}, not a parameter", tl.Name, used)
				}
			}
		}
	})
}

// FuzzTemplate: the splitter never panics; a value put in a whole-word
// placeholder comes back as exactly one argument, whatever it holds
// (quotes, spaces, $, ;); and a value beginning with "-" is refused
// exactly when it would begin an argument before a literal "--" and the
// parameter does not allow a leading dash.
func FuzzTemplate(f *testing.F) {
	f.Add(`grep -n {{q}} "a b" 'c d' e\ f`, "x; rm -rf / $HOME `id`", false)
	f.Add(`echo {{q:--flag}}`, `"'`, false)
	f.Add(`x "unterminated`, "", false)
	f.Add(`sort {{q}}`, "--output=pwned.txt", false)
	f.Add(`sort -- {{q}}{{q}}`, "-r", false)
	f.Add(`sort {{q}}`, "-r", true)
	f.Fuzz(func(t *testing.T, line, value string, dash bool) {
		tmpl, err := ParseTemplate(line)
		if err != nil {
			return
		}
		params := []Param{{Name: "q", Type: TypeString, LeadingDash: dash}}
		args, err := tmpl.Args(params, map[string]any{"q": value})
		leads := false // a word before any literal "--" that q begins
		for _, w := range tmpl.Words[1:] {
			if len(w) == 1 && w[0].Param == "" && w[0].Literal == EndOfOptions {
				break
			}
			if len(w) > 0 && w[0].Param == "q" && onlyQ(w) {
				leads = true
			}
		}
		if wantErr := leads && !dash && strings.HasPrefix(value, "-"); wantErr != (err != nil) {
			t.Fatalf("line %q value %q dash %v: error %v, want one: %v", line, value, dash, err, wantErr)
		}
		if err != nil {
			if _, ok := err.(*ArgumentError); !ok {
				t.Fatalf("error %T %v, want an ArgumentError", err, err)
			}
			return
		}
		whole := 0
		for _, w := range tmpl.Words[1:] {
			if len(w) == 1 && w[0].Param == "q" {
				whole++
			}
		}
		count := 0
		for _, a := range args {
			if a == value {
				count++
			}
		}
		if count < whole {
			t.Fatalf("line %q value %q: %d whole-word placeholders, value found as %d arguments: %q", line, value, whole, count, args)
		}
		if strings.Contains(tmpl.Program(), "{{") && tmpl.Words[0][0].Param != "" {
			t.Fatalf("placeholder program accepted: %q", line)
		}
	})
}

// onlyQ reports whether every placeholder of w is q, so that w is not
// left out for want of another parameter's value.
func onlyQ(w Word) bool {
	for _, f := range w {
		if f.Param != "" && f.Param != "q" {
			return false
		}
	}
	return true
}
