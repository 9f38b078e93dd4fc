package tools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// D37, rule by rule: values never add, split or remove words, and shell
// syntax in a value or in the line stays literal.
func TestTemplateArgs(t *testing.T) {
	params := []Param{
		{Name: "q", Type: TypeString},
		{Name: "n", Type: TypeInteger, Default: int64(3)},
		{Name: "x", Type: TypeNumber},
		{Name: "v", Type: TypeBoolean},
		{Name: "files", Type: TypeArray},
		{Name: "mode", Type: TypeString},
	}
	for _, c := range []struct {
		line, args string
		want       []string
	}{
		{`grep {{q}} file`, `{"q": "a b; rm -rf / | cat $HOME > out"}`, []string{"a b; rm -rf / | cat $HOME > out", "file"}},
		{`grep "--regexp={{q}}" '*.md'`, `{"q": "it's \"quoted\""}`, []string{`--regexp=it's "quoted"`, "*.md"}},
		{`echo $HOME ; ls | wc`, `{}`, []string{"$HOME", ";", "ls", "|", "wc"}},
		{`head -n {{n}}`, `{}`, []string{"-n", "3"}},         // the table's default
		{`head -n {{n:7}}`, `{}`, []string{"-n", "7"}},       // the template's default wins
		{`head -n {{n:7}}`, `{"n": 1}`, []string{"-n", "1"}}, // a given value wins over both
		{`calc {{x}}`, `{"x": 0.5}`, []string{"0.5"}},
		{`calc {{x}}`, `{"x": 2e3}`, []string{"2000"}},
		{`grep {{q}} -- x`, `{}`, []string{"--", "x"}},               // a whole-word placeholder without value is dropped
		{`grep --query={{q}} x`, `{}`, []string{"x"}},                // so is a word that needs it
		{`ls {{v:-l}} {{v}}`, `{"v": true}`, []string{"-l", "true"}}, // a flag, and a boolean as text
		{`ls {{v:-l}}`, `{"v": false}`, nil},
		{`ls --color{{v:=always}}`, `{}`, []string{"--color"}},
		{`cat {{files}}`, `{"files": ["a b", "c"]}`, []string{"a b", "c"}}, // one argument per item
		{`cat {{files}}`, `{"files": []}`, nil},
		{`tar --files={{files}}`, `{"files": ["a", "b"]}`, []string{"--files=a b"}},
		{`run {{mode:fast}}`, `{}`, []string{"fast"}},
		{`run {{q}}`, `{"q": ""}`, []string{""}}, // an empty string is still an argument
	} {
		tmpl, err := ParseTemplate(c.line)
		if err != nil {
			t.Fatalf("ParseTemplate(%q): %v", c.line, err)
		}
		values, err := Check(params, []byte(c.args))
		if err != nil {
			t.Fatalf("Check(%s): %v", c.args, err)
		}
		got, err := tmpl.Args(params, values)
		if err != nil || !cmp.Equal(got, c.want, cmpopts.EquateEmpty()) {
			t.Errorf("%s with %s: %q, %v, want %q", c.line, c.args, got, err, c.want)
		}
	}
}

// A value the caller gives never begins an argument with "-": sort
// {{file}} with --output=x would write x, and --files0-from=f would read
// f. It may where the parameter declares a leading dash, after a literal
// "--", or behind literal text in its word; the author's own text
// (template defaults, flags, the table's defaults) always may.
func TestTemplateArgsValuesAreNeverOptions(t *testing.T) {
	params := []Param{
		{Name: "file", Type: TypeString},
		{Name: "files", Type: TypeArray},
		{Name: "n", Type: TypeInteger, Default: int64(-1)},
		{Name: "x", Type: TypeNumber},
		{Name: "pattern", Type: TypeString, LeadingDash: true},
		{Name: "v", Type: TypeBoolean},
		{Name: "empty", Type: TypeString},
	}
	refused := `", so sort could take it for an option; give a value that does not begin with "-" (a path can start with ./), or ask the skill's author to allow it (a Leading dash column saying yes, or -- before the placeholder in the command)`
	for _, c := range []struct {
		line, args string
		want       []string
		err        string
	}{
		{`sort {{file}}`, `{"file": "--output=pwned.txt"}`, nil, `parameter file: the value "--output=pwned.txt" begins with "-` + refused},
		{`sort {{file}}`, `{"file": "--files0-from=/etc/hostname"}`, nil, `parameter file: the value "--files0-from=/etc/hostname" begins with "-` + refused},
		{`sort {{file}}`, `{"file": "-"}`, nil, `parameter file: the value "-" begins with "-` + refused},
		{`sort {{files}}`, `{"files": ["a", "-o", "x"]}`, nil, `parameter files: item 1, "-o", begins with "-` + refused},
		{`sort {{files}}.txt`, `{"files": ["-o", "x"]}`, nil, `parameter files: the value "-o x" begins with "-` + refused},
		{`sort -n {{n}}`, `{"n": -5}`, nil, `parameter n: the value "-5" begins with "-` + refused},
		{`sort {{x}}`, `{"x": -0.5}`, nil, `parameter x: the value "-0.5" begins with "-` + refused},
		{`sort {{empty}}{{file}}`, `{"empty": "", "file": "-r"}`, nil, `parameter file: the value "-r" begins with "-` + refused},
		{`sort {{file}} -- {{files}}`, `{"file": "-r", "files": ["-x"]}`, nil, `parameter file: the value "-r" begins with "-` + refused},
		// allowed
		{`sort -- {{file}}`, `{"file": "--output=x"}`, []string{"--", "--output=x"}, ""},
		{`sort -- {{files}}`, `{"files": ["-a", "-b"]}`, []string{"--", "-a", "-b"}, ""},
		{`grep -e {{pattern}}`, `{"pattern": "-v"}`, []string{"-e", "-v"}, ""},
		{`sort ./{{file}}`, `{"file": "-r"}`, []string{"./-r"}, ""},
		{`sort --key={{file}}`, `{"file": "-1"}`, []string{"--key=-1"}, ""},
		{`sort {{file}}`, `{"file": "a-b"}`, []string{"a-b"}, ""},
		{`sort {{files}}`, `{"files": ["a", "b-"]}`, []string{"a", "b-"}, ""},
		{`sort -n {{n}}`, `{}`, []string{"-n", "-1"}, ""}, // the table's default
		{`sort {{file:-r}}`, `{}`, []string{"-r"}, ""},    // the template's default
		{`sort {{v:-r}}{{file}}`, `{"v": true}`, nil, ""}, // a flag, then no value: the word is left out
		{`sort {{v:-r}} {{file}}`, `{"v": true, "file": "f"}`, []string{"-r", "f"}, ""},
		{`sort "{{file}}"`, `{"file": "- x"}`, nil, `parameter file: the value "- x" begins with "-` + refused},
	} {
		tmpl, err := ParseTemplate(c.line)
		if err != nil {
			t.Fatalf("ParseTemplate(%q): %v", c.line, err)
		}
		values, err := Check(params, []byte(c.args))
		if err != nil {
			t.Fatalf("Check(%s): %v", c.args, err)
		}
		got, err := tmpl.Args(params, values)
		if c.err != "" {
			if _, ok := err.(*ArgumentError); !ok || err.Error() != c.err {
				t.Errorf("%s with %s: %q, %v\nwant the ArgumentError %s", c.line, c.args, got, err, c.err)
			}
			continue
		}
		if err != nil || !cmp.Equal(got, c.want, cmpopts.EquateEmpty()) {
			t.Errorf("%s with %s: %q, %v, want %q", c.line, c.args, got, err, c.want)
		}
	}
}

// A refused value is quoted clipped, as every caller input in an error.
func TestTemplateArgsRefusalClipsTheValue(t *testing.T) {
	params := []Param{{Name: "file", Type: TypeString}}
	tmpl, err := ParseTemplate(`cat {{file}}`)
	if err != nil {
		t.Fatal(err)
	}
	long := "-" + strings.Repeat("x", 10_000)
	_, err = tmpl.Args(params, map[string]any{"file": long})
	if err == nil || len(err.Error()) > 600 || !strings.Contains(err.Error(), "… (10001 bytes) begins with") {
		t.Errorf("error = %.300v… (%d bytes)", err, len(fmt.Sprint(err)))
	}
}

func TestParseTemplateErrors(t *testing.T) {
	for line, want := range map[string]string{
		``:                  "command is empty",
		`   `:               "command is empty",
		`echo 'open`:        "EOF found when expecting closing quote",
		`echo trailing\`:    "EOF found after escape character",
		`{{prog}} arg`:      "the program (first word) must be literal",
		`echo {{bad name}}`: "a placeholder is written",
		`echo {{unclosed`:   "a placeholder is written",
	} {
		if _, err := ParseTemplate(line); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseTemplate(%q) = %v, want an error containing %q", line, err, want)
		}
	}
}

// Arguments are checked against the parameters before anything runs; each
// error names the parameter and what was wanted.
func TestCheck(t *testing.T) {
	params := []Param{
		{Name: "q", Type: TypeString, Required: true, Description: "The query."},
		{Name: "n", Type: TypeInteger},
		{Name: "tags", Type: TypeArray},
		{Name: "on", Type: TypeBoolean},
	}
	for args, want := range map[string]string{
		`{}`:                      "missing required parameter q (string): The query.",
		`null`:                    "missing required parameter q",
		`{"q": null}`:             "missing required parameter q",
		`{"q": 1}`:                "parameter q: got the number 1, want a string",
		`{"q": "a", "n": 1.5}`:    "parameter n: got the number 1.5, want an integer",
		`{"q": "a", "n": "3"}`:    `parameter n: got a string "3", want an integer`,
		`{"q": "a", "tags": [1]}`: "parameter tags: item 0 is the number 1, want a string",
		`{"q": "a", "tags": "x"}`: "want an array of strings",
		`{"q": "a", "on": "yes"}`: "want a boolean",
		`{"q": "a", "extra": 1}`:  `unknown parameter "extra"; the parameters are q, n, tags, on`,
		`["q"]`:                   "must be a JSON object",
		`{"q": "a", "n": 1e400}`:  "want an integer",
	} {
		_, err := Check(params, []byte(args))
		if _, ok := err.(*ArgumentError); !ok || !strings.Contains(err.Error(), want) {
			t.Errorf("Check(%s) = %v, want an ArgumentError containing %q", args, err, want)
		}
	}
	values, err := Check(params, []byte(`{"q": "a", "n": 2.0, "tags": ["x"], "on": true}`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"q": "a", "n": int64(2), "tags": []string{"x"}, "on": true}, values); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
}

func TestInputSchema(t *testing.T) {
	got := InputSchema([]Param{
		{Name: "q", Type: TypeString, Required: true, Description: "The query."},
		{Name: "files", Type: TypeArray},
		{Name: "n", Type: TypeInteger, Default: int64(10)},
	})
	want := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"q":     map[string]any{"type": "string", "description": "The query."},
			"files": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			"n":     map[string]any{"type": "integer", "default": int64(10)},
		},
		"required":             []string{"q"},
		"additionalProperties": false,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("schema (-want +got):\n%s", diff)
	}
}
