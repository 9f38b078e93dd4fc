package fsource

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/ids"
)

// promptLines renders prompts as "name {dir}/relative/path: description".
func promptLines(dir string, prompts []Prompt) []string {
	var out []string
	for _, p := range prompts {
		out = append(out, p.Name+" "+strings.ReplaceAll(p.Path, dir, "{dir}")+": "+p.Description)
	}
	return out
}

func TestPrompts(t *testing.T) {
	tests := []struct {
		name        string
		files       map[string]string
		patterns    []string
		wantPrompts []string
		wantSkips   []string
	}{
		{
			name: "name from frontmatter, else the last segment of the derived id",
			files: map[string]string{
				"p/open-pr.md":    "---\nname: open-pr\ndescription: Open a PR.\n---\nBody\n",
				"p/sub/review.md": "---\ndescription: Review code.\n---\nBody\n",
				"p/renamed.md":    "---\nname: '  ship  '\ndescription: Ship it.\n---\n",
				"p/blank-name.md": "---\nname: '   '\ndescription: Falls back.\n---\n",
				"p/extra-keys.md": "---\ndescription: x\narguments: [{name: a}]\ntags: {a: 1}\n---\n",
				"p/trimmed.md":    "---\ndescription: |\n\n   Indented text.\n\n---\n",
				"p/null-name.md":  "---\nname: ~\ndescription: Null name.\n---\n",
				"p/crlf.md":       "---\r\nname: crlf\r\ndescription: CRLF file.\r\n---\r\nBody\r\n",
				"p/empty-body.md": "---\ndescription: Listed anyway.\n---\n",
				"p/aliased.md":    "---\nx: &d Aliased.\ndescription: *d\n---\n",
				"p/quoted-num.md": "---\nname: \"42\"\ndescription: \"7\"\n---\n",
			},
			patterns: []string{"p/**/*.md"},
			wantPrompts: []string{
				"42 {dir}/p/quoted-num.md: 7",
				"aliased {dir}/p/aliased.md: Aliased.",
				"blank-name {dir}/p/blank-name.md: Falls back.",
				"crlf {dir}/p/crlf.md: CRLF file.",
				"empty-body {dir}/p/empty-body.md: Listed anyway.",
				"extra-keys {dir}/p/extra-keys.md: x",
				"null-name {dir}/p/null-name.md: Null name.",
				"open-pr {dir}/p/open-pr.md: Open a PR.",
				"review {dir}/p/sub/review.md: Review code.",
				"ship {dir}/p/renamed.md: Ship it.",
				"trimmed {dir}/p/trimmed.md: Indented text.",
			},
		},
		{
			name: "read errors",
			files: map[string]string{
				"p/binary.md": "---\ndescription: x\n---\n\xff\xfe\x00junk",
				"p/broken.md": "->nowhere.md",
			},
			patterns: []string{"p/*.md"},
			wantSkips: []string{
				"prompt {dir}/p/binary.md: read: not valid UTF-8 text (first invalid byte at offset 23)",
				"prompt {dir}/p/broken.md: read: no such file or directory",
			},
		},
		{
			name: "missing frontmatter",
			files: map[string]string{
				"p/plain.md":    "# Just markdown\n",
				"p/unclosed.md": "---\ndescription: x\nno closing fence\n",
				"p/fences.md":   "---\n---\n",
				"p/late.md":     "\n---\ndescription: x\n---\n",
				"p/empty.md":    "",
			},
			patterns: []string{"p/*.md"},
			wantSkips: []string{
				"prompt {dir}/p/empty.md: missing YAML frontmatter (expected --- ... --- block at file start)",
				"prompt {dir}/p/fences.md: missing YAML frontmatter (expected --- ... --- block at file start)",
				"prompt {dir}/p/late.md: missing YAML frontmatter (expected --- ... --- block at file start)",
				"prompt {dir}/p/plain.md: missing YAML frontmatter (expected --- ... --- block at file start)",
				"prompt {dir}/p/unclosed.md: missing YAML frontmatter (expected --- ... --- block at file start)",
			},
		},
		{
			name: "invalid frontmatter YAML, with file line numbers",
			files: map[string]string{
				"p/a-syntax.md":    "---\nname: x\ndescription: Use when: asked\n---\n",
				"p/b-number.md":    "---\nname: x\ndescription: 5\n---\n",
				"p/c-list-name.md": "---\nname: [a, b]\ndescription: y\n---\n",
				"p/d-bool.md":      "---\ndescription: true\n---\n",
				"p/e-not-a-map.md": "---\n- a\n- b\n---\n",
				"p/f-scalar.md":    "---\njust text\n---\n",
				"p/g-repeated.md":  "---\ndescription: a\nname: x\ndescription: b\n---\n",
				"p/h-tabs.md":      "---\n\tdescription: x\n---\n",
				"p/i-map-desc.md":  "---\ndescription:\n  text: x\n---\n",
			},
			patterns: []string{"p/*.md"},
			wantSkips: []string{
				"prompt {dir}/p/a-syntax.md: invalid frontmatter YAML: line 3: mapping values are not allowed in this context",
				"prompt {dir}/p/b-number.md: invalid frontmatter YAML: line 3: `description` must be a string, got int \"5\" (quote the value)",
				"prompt {dir}/p/c-list-name.md: invalid frontmatter YAML: line 2: `name` must be a string, got a list (quote the value)",
				"prompt {dir}/p/d-bool.md: invalid frontmatter YAML: line 2: `description` must be a string, got bool \"true\" (quote the value)",
				"prompt {dir}/p/e-not-a-map.md: invalid frontmatter YAML: line 2: frontmatter must be a mapping of keys such as `description: …`, got a list",
				"prompt {dir}/p/f-scalar.md: invalid frontmatter YAML: line 2: frontmatter must be a mapping of keys such as `description: …`, got str \"just text\"",
				"prompt {dir}/p/g-repeated.md: invalid frontmatter YAML: line 4: key `description` is repeated (first at line 2)",
				"prompt {dir}/p/h-tabs.md: invalid frontmatter YAML: line 2: found character that cannot start any token",
				"prompt {dir}/p/i-map-desc.md: invalid frontmatter YAML: line 3: `description` must be a string, got a mapping (quote the value)",
			},
		},
		{
			name: "invalid prompt names",
			files: map[string]string{
				"p/Bad-Name.md": "---\ndescription: x\n---\n",
				"p/spaced.md":   "---\nname: Open PR\ndescription: x\n---\n",
				"p/long.md":     "---\nname: " + strings.Repeat("a", 65) + "\ndescription: x\n---\n",
				"p/notes.txt":   "---\ndescription: x\n---\n",
			},
			patterns: []string{"p/*"},
			wantSkips: []string{
				"prompt {dir}/p/Bad-Name.md: " + invalidNameReason("Bad-Name"),
				"prompt {dir}/p/long.md: " + invalidNameReason(strings.Repeat("a", 65)),
				"prompt {dir}/p/notes.txt: " + invalidNameReason("notes.txt"),
				"prompt {dir}/p/spaced.md: " + invalidNameReason("Open PR"),
			},
		},
		{
			name: "missing description",
			files: map[string]string{
				"p/absent.md":  "---\nname: a\n---\nBody\n",
				"p/empty.md":   "---\ndescription: ''\n---\n",
				"p/blank.md":   "---\ndescription: \"  \\n\\t \"\n---\n",
				"p/null.md":    "---\ndescription: ~\n---\n",
				"p/nothing.md": "---\n\n---\n",
			},
			patterns: []string{"p/*.md"},
			wantSkips: []string{
				"prompt {dir}/p/absent.md: frontmatter missing non-empty `description`",
				"prompt {dir}/p/blank.md: frontmatter missing non-empty `description`",
				"prompt {dir}/p/empty.md: frontmatter missing non-empty `description`",
				"prompt {dir}/p/nothing.md: frontmatter missing non-empty `description`",
				"prompt {dir}/p/null.md: frontmatter missing non-empty `description`",
			},
		},
		{
			name: "reasons are checked in order: name before description",
			files: map[string]string{
				"p/both.md": "---\nname: Bad\n---\n",
			},
			patterns:  []string{"p/*.md"},
			wantSkips: []string{"prompt {dir}/p/both.md: " + invalidNameReason("Bad")},
		},
		{
			name: "duplicate names: first pattern, then first sorted path wins",
			files: map[string]string{
				"a/x.md":      "---\nname: review\ndescription: first\n---\n",
				"a/y.md":      "---\nname: review\ndescription: second\n---\n",
				"b/review.md": "---\ndescription: third\n---\n",
			},
			patterns:    []string{"a/*.md", "b/*.md", "a/*.md"},
			wantPrompts: []string{"review {dir}/a/x.md: first"},
			// The repeated pattern matches a/y.md again: each pattern's
			// matches are checked on their own, as in the reference.
			wantSkips: []string{
				`prompt {dir}/a/y.md: duplicate name "review" also produced by {dir}/a/x.md`,
				`prompt {dir}/b/review.md: duplicate name "review" also produced by {dir}/a/x.md`,
				`prompt {dir}/a/y.md: duplicate name "review" also produced by {dir}/a/x.md`,
			},
		},
		{
			name:     "invalid pattern",
			files:    map[string]string{},
			patterns: []string{"p/[x"},
			wantSkips: []string{
				`prompt p/[x: invalid glob "p/[x": '[' at "[x" is never closed by ']'`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeTree(t, tt.files)
			prompts, skips := New(dir, nil, tt.patterns).Prompts()
			if diff := cmp.Diff(tt.wantPrompts, promptLines(dir, prompts)); diff != "" {
				t.Errorf("prompts (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantSkips, skipLines(dir, skips)); diff != "" {
				t.Errorf("skips (-want +got):\n%s", diff)
			}
		})
	}
}

// invalidNameReason is the skip reason for a prompt name that fails
// validation, with the validation text of package ids.
func invalidNameReason(name string) string {
	return "invalid prompt name " + ids.Quote(name) + ": " + ids.ValidatePromptName(name).Error()
}

func TestPromptsSizeAndModTime(t *testing.T) {
	const content = "---\ndescription: d\n---\nbody\n"
	dir := writeTree(t, map[string]string{"p.md": content})
	prompts, _ := New(dir, nil, []string{"*.md"}).Prompts()
	fi, err := os.Stat(filepath.Join(dir, "p.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Prompt{{Name: "p", Description: "d", Path: filepath.Join(dir, "p.md"), Size: int64(len(content)), ModTime: fi.ModTime(), Stamp: StampOf(fi)}}
	if diff := cmp.Diff(want, prompts, cmpTime, cmpStamp); diff != "" {
		t.Errorf("prompts (-want +got):\n%s", diff)
	}
}

func TestPromptsSeeEditsOnTheNextCall(t *testing.T) {
	dir := writeTree(t, map[string]string{"p.md": "---\ndescription: old\n---\n"})
	src := New(dir, nil, []string{"*.md"})
	first, _ := src.Prompts()
	if diff := cmp.Diff([]string{"p {dir}/p.md: old"}, promptLines(dir, first)); diff != "" {
		t.Fatalf("first call (-want +got):\n%s", diff)
	}
	if err := os.WriteFile(filepath.Join(dir, "p.md"), []byte("---\nname: q\ndescription: new\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	second, _ := src.Prompts()
	if diff := cmp.Diff([]string{"q {dir}/p.md: new"}, promptLines(dir, second)); diff != "" {
		t.Errorf("second call (-want +got):\n%s", diff)
	}
}

func TestPromptsTooLargeToRead(t *testing.T) {
	dir := writeTree(t, map[string]string{})
	f, err := os.Create(filepath.Join(dir, "huge.md"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(maxFileBytes + 1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	f.Close()
	_, skips := New(dir, nil, []string{"*.md"}).Prompts()
	want := []string{"prompt {dir}/huge.md: read: file is too large to read (16777217 bytes; max 16777216)"}
	if diff := cmp.Diff(want, skipLines(dir, skips)); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}
}

func FuzzParsePromptMeta(f *testing.F) {
	for _, s := range []string{"", "description: x", "name: a\nname: b", "- a", "description: *x", "a: &a [*a]\ndescription: *a", "!!%0A"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, front []byte) {
		meta, err := parsePromptMeta(front)
		if err != nil {
			if msg := err.Error(); msg == "" || strings.Contains(msg, "\n") {
				t.Fatalf("error %q is empty or spans lines", msg)
			}
			if meta != (promptMeta{}) {
				t.Fatalf("meta %+v returned with error %v", meta, err)
			}
		}
	})
}
