package mcpskills

import (
	"strings"
	"testing"
)

// A skill:// URI written by joining a link to a file's folder reads the
// file the link names (D70); the contents carry the URI as asked for.
// One that leaves the registry or hides a separator is refused naming
// it; one that names nothing is not found naming what it resolved to.
func TestReadFollowsLinkForms(t *testing.T) {
	f, _ := mcpSkillsFixture(t)
	read := func(uri string) (mcpSkillsReadOutput, error) {
		return f.ext.mcpSkillsRead(f.ctx, mcpSkillsGetInput{URI: &uri})
	}
	for uri, want := range map[string]string{
		"skill://pdf/./references/forms.md":        "# Forms",
		"skill://pdf/references/../SKILL.md":       "---\nname: pdf",
		"skill://pdf/fill/../references/tables.md": "# Tables",
		"skill://pdf/{baseDir}/scripts/fill.py":    "print('fill')",
		"skill://pdf/SKILL.md#usage":               "---\nname: pdf",
		"skill://pdf/":                             "---\nname: pdf",
		"skill://pdf/references/../fill/":          "---\nname: fill",
		"skill://team/deploy-guide/":               "---\nname: deploy-guide",
	} {
		out, err := read(uri)
		if err != nil {
			t.Errorf("read %s: %v", uri, err)
			continue
		}
		if c := out.Contents[0]; c.URI != uri || !strings.HasPrefix(c.Text, want) {
			t.Errorf("read %s = %q %q, want the uri echoed and text starting %q", uri, c.URI, c.Text, want)
		}
	}
	for uri, want := range map[string]struct{ code, says string }{
		"skill://pdf/../../etc/passwd":       {"invalid_argument", "above the registry root"},
		"skill://pdf/%2E%2E/%2E%2E/x":        {"invalid_argument", "percent-encoded"},
		"skill://pdf/./a\x00b":               {"invalid_argument", "NUL"},
		"skill://{baseDir}/x.md":             {"invalid_argument", "{baseDir}"},
		"skill://pdf/..":                     {"not_found", "registry root"},
		"skill://pdf/../odd":                 {"invalid_argument", "a skill without a file"},
		"skill://pdf/./references/gone.md#x": {"not_found", "resolves to skill://pdf/references/gone.md"},
		"skill://pdf/../gone/":               {"not_found", "resolves to skill://gone/SKILL.md"},
	} {
		_, err := read(uri)
		if msg, code := errText(err); code != want.code || !strings.Contains(msg, want.says) {
			t.Errorf("read %q: %s %q, want %s saying %q", uri, code, msg, want.code, want.says)
		}
	}
}
