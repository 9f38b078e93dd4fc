package diagnostics

import (
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/iii-hq/skills-go/internal/catalog"
)

// Scan is what a scan of the globs and roots found.
type Scan struct {
	Skills      []catalog.FileSkill
	SkillSkips  []catalog.FileSkip
	Prompts     []catalog.FilePrompt
	PromptSkips []catalog.FileSkip
	Roots       []string // the configured roots, absolute
}

// FromScan starts a report from a scan: every file with its status, and
// every root with its state and how many skills it serves.
func FromScan(s Scan) Report {
	r := Report{Files: []File{}, Roots: []Root{}, Tools: []Tool{}, Reads: map[string]uint64{}, Watch: Watch{Mode: "off"}}
	perRoot := map[string]int{}
	for _, sk := range s.Skills {
		r.Files = append(r.Files, File{Path: sk.Path, ID: sk.ID, Kind: catalog.KindSkill, Status: Loaded})
		if sk.Root != "" {
			perRoot[sk.Root]++
		}
	}
	for _, p := range s.Prompts {
		r.Files = append(r.Files, File{Path: p.Path, ID: p.Name, Kind: catalog.KindPrompt, Status: Loaded})
	}
	for _, skips := range [][]catalog.FileSkip{s.SkillSkips, s.PromptSkips} {
		for _, sk := range skips {
			status := Skipped
			switch {
			case sk.Warning:
				status = Warning
			case strings.HasPrefix(sk.Reason, "shadowed"):
				status = Shadowed
			}
			r.Files = append(r.Files, File{Path: sk.Path, Kind: sk.Kind, Status: status, Reason: sk.Reason})
		}
	}
	for _, root := range s.Roots {
		entry := Root{Path: root, Status: RootOK, Skills: perRoot[root]}
		fi, err := os.Stat(root)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			entry.Status, entry.Reason = RootMissing, "no such folder (skipped; served once it appears)"
		case err != nil:
			entry.Status, entry.Reason = RootError, err.Error()
		case !fi.IsDir():
			entry.Status, entry.Reason = RootError, "not a folder"
		}
		r.Roots = append(r.Roots, entry)
	}
	return r
}

// MarkShadowedByState marks the loaded files whose id a state row holds.
func (r *Report) MarkShadowedByState(kind string, inState func(id string) bool) {
	for i, f := range r.Files {
		if f.Kind == kind && f.Status == Loaded && inState(f.ID) {
			r.Files[i].Status = Shadowed
			r.Files[i].Reason = "a registered entry has the same " + map[string]string{catalog.KindSkill: "id", catalog.KindPrompt: "name"}[kind] + "; state wins"
		}
	}
}
