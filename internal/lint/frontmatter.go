package lint

import (
	"fmt"
	"strings"
)

// MaxFrontmatterBytes bounds a frontmatter block. The Agent Skills
// specification allows a name of 64 characters and a description of 1,024;
// with the optional fields, the largest frontmatter of the 438 public
// skills of the shared corpus is 2,008 bytes. A frontmatter is copied into
// every listing that names the skill (its description into
// resources-list, the MCP Skills extension and the index), so a 2.2 MB
// one made skills/list 2.47 MB (issue 27). 16 KiB is eight times the
// largest real one, and a listing of 1,000 skills at the bound stays
// within the engine's usual 64 MiB frame.
const MaxFrontmatterBytes = 16 << 10

// checkFrontmatter flags a frontmatter block over MaxFrontmatterBytes, on
// its opening line.
func checkFrontmatter(text string, r *Report) {
	if n, ok := frontmatterLen(text); ok && n > MaxFrontmatterBytes {
		r.add(Finding{Rule: RuleFrontmatterSize, Line: 1,
			Detail: fmt.Sprintf("frontmatter is %d bytes; at most %d are allowed", n, MaxFrontmatterBytes)})
	}
}

// frontmatterLen is the length of text's frontmatter block by
// skillmd.SplitFrontmatter's rule (TestFrontmatterLenAgreesWithSkillmd),
// without copying text to bytes.
func frontmatterLen(text string) (int, bool) {
	var rest string
	switch {
	case strings.HasPrefix(text, "---\n"):
		rest = text[4:]
	case strings.HasPrefix(text, "---\r\n"):
		rest = text[5:]
	default:
		return 0, false
	}
	if i := strings.Index(rest, "\n---\n"); i >= 0 {
		return i, true
	}
	if i := strings.Index(rest, "\n---\r\n"); i >= 0 {
		return i, true
	}
	for _, end := range []string{"\n---", "\n---\r"} {
		if strings.HasSuffix(rest, end) {
			return len(rest) - len(end), true
		}
	}
	return 0, false
}
