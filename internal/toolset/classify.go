package toolset

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/diagnostics"
	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/tools"
)

// Entry is one tool skill as Classify judged it.
type Entry struct {
	ID     string // the skill's id
	Path   string
	Status string // tools.Status*
	Reason string // for invalid, or why an approved skill's tools are not served
	Tools  []string
	// Refused is set when no approval can get the skill's tools served:
	// they do not parse, or its name is reserved. skills tools approve
	// refuses such a skill with the Reason.
	Refused bool
	// Skill is the SKILL.md as parsed and Sum the sha256 of the bytes
	// judged: what an approval records.
	Skill tools.Skill
	Sum   string

	serve []tools.Tool // the tools to serve as functions
}

// Classify reads each SKILL.md among skills (a listing of files on disk)
// with read and judges it against lock: the one judgement of a tool skill,
// shared by the worker's Set and by skills tools and skills doctor, so
// the commands call a skill what the worker makes of it. A file without
// tool blocks, or that cannot be read, is left out. The status is the
// lock's (or invalid); an approved skill is still not served, with the
// reason, when its name is reserved (D36) or, tool by tool, when an
// earlier skill in the listing already serves the same function id.
func Classify(skills []catalog.FileSkill, read func(path string) ([]byte, error), lock tools.Lock) []Entry {
	var entries []Entry
	taken := map[string]bool{}
	for _, sk := range skills {
		if !strings.EqualFold(filepath.Base(sk.Path), catalog.SkillFile) {
			continue
		}
		raw, err := read(sk.Path)
		if err != nil {
			continue // the watch reports unreadable files
		}
		parsed, _, err := tools.Parse(raw)
		if err == nil && len(parsed.Tools) == 0 {
			continue // a skill without tools
		}
		e := Entry{ID: sk.ID, Path: sk.Path, Skill: parsed, Sum: tools.Sum(raw)}
		for _, t := range parsed.Tools {
			e.Tools = append(e.Tools, t.Name)
		}
		switch {
		case err != nil:
			e.Status, e.Reason, e.Refused = tools.StatusInvalid, err.Error(), true
		case slices.Contains(reservedNames, parsed.Name):
			e.Status = lock.Status(sk.Path, e.Sum)
			e.Reason = fmt.Sprintf("the skill name %s would put its tools in the reserved namespace %s::", ids.Quote(parsed.Name), parsed.Name)
			e.Refused = true
		default:
			e.Status = lock.Status(sk.Path, e.Sum)
		}
		if e.Status == tools.StatusApproved && e.Reason == "" {
			for _, t := range parsed.Tools {
				id := parsed.Name + "::" + t.Name
				if taken[id] {
					e.Reason = fmt.Sprintf("function %s is already served by another skill", id)
					continue
				}
				taken[id] = true
				e.serve = append(e.serve, t)
			}
		}
		entries = append(entries, e)
	}
	return entries
}

// Rows are the tool skills as diagnostics shows them, for skills
// diagnostics and skills doctor alike: a row per tool, or one row for a
// skill whose tools do not parse.
func Rows(entries []Entry) []diagnostics.Tool {
	rows := []diagnostics.Tool{}
	for _, e := range entries {
		if len(e.Tools) == 0 {
			rows = append(rows, diagnostics.Tool{Skill: e.ID, Status: e.Status, Reason: e.Reason})
			continue
		}
		for _, name := range e.Tools {
			rows = append(rows, diagnostics.Tool{Skill: e.ID, Tool: name, Status: e.Status, Reason: e.Reason})
		}
	}
	return rows
}
