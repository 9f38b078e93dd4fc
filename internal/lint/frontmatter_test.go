package lint

import (
	"testing"

	"github.com/iii-hq/skills-go/internal/skillmd"
)

func TestFrontmatterLenAgreesWithSkillmd(t *testing.T) {
	for _, text := range []string{"", "---\n", "---\n---\n", "---\na: b\n---\nbody", "---\r\na: b\r\n---\r\nbody",
		"---\na: b\n---", "---\na: b\n---\r", "---\na: b\n", "x---\na\n---\n", "---\na\n---x\n---\n"} {
		front, _, ok := skillmd.SplitFrontmatter([]byte(text))
		n, gotOK := frontmatterLen(text)
		if gotOK != ok || n != len(front) {
			t.Errorf("frontmatterLen(%q) = %d, %v; skillmd says %d, %v", text, n, gotOK, len(front), ok)
		}
	}
}
