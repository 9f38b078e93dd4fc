package diagnostics

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/lint"
)

// Lint is what the content checks found (docs/decisions.md D65): every
// flagged skill and prompt with its findings, and how many entries each
// rule flagged, so a large corpus reads as counts first.
type Lint struct {
	Mode    string         `json:"mode"`    // lint.flagged
	Checked int            `json:"checked"` // skills and prompts checked
	Flagged int            `json:"flagged"` // of those, flagged
	Rules   map[string]int `json:"rules"`   // entries flagged per rule
	Entries []Flagged      `json:"entries"` // kind, then id order
}

// Flagged is one flagged skill or prompt.
type Flagged struct {
	Kind     string         `json:"kind"` // skill or prompt
	ID       string         `json:"id"`   // a skill's id, a prompt's name
	Origin   string         `json:"origin"`
	Path     string         `json:"path,omitempty"`     // a file's
	Withheld bool           `json:"withheld,omitempty"` // not served (lint.flagged: withhold)
	Findings []lint.Finding `json:"findings"`
	Omitted  int            `json:"omitted,omitempty"` // findings beyond lint.MaxFindings
}

// NewLint starts an empty Lint for mode.
func NewLint(mode lint.Mode) *Lint {
	return &Lint{Mode: string(mode), Rules: map[string]int{}, Entries: []Flagged{}}
}

// Add counts one checked entry and keeps it when r flagged it.
func (l *Lint) Add(kind, id, origin, path string, withheld bool, r *lint.Report) {
	l.Checked++
	if r == nil {
		return
	}
	l.Flagged++
	for _, rule := range r.Rules() {
		l.Rules[rule]++
	}
	l.Entries = append(l.Entries, Flagged{Kind: kind, ID: id, Origin: origin, Path: path, Withheld: withheld,
		Findings: r.Findings, Omitted: r.Omitted})
}

// lintOf is the view's Lint: the listed entries and the withheld ones.
func lintOf(mode lint.Mode, sl catalog.Listing, pl catalog.PromptListing) *Lint {
	l := NewLint(mode)
	for _, group := range []struct {
		skills   []catalog.Skill
		withheld bool
	}{{sl.Skills, false}, {sl.Withheld, true}, {sl.Hidden, false}} {
		for _, s := range group.skills {
			l.Add(catalog.KindSkill, s.ID, s.Origin, s.File.Path, group.withheld, s.Lint)
		}
	}
	for _, group := range []struct {
		prompts  []catalog.Prompt
		withheld bool
	}{{pl.Prompts, false}, {pl.Withheld, true}} {
		for _, p := range group.prompts {
			l.Add(catalog.KindPrompt, p.Name, p.Origin, p.File.Path, group.withheld, p.Lint)
		}
	}
	l.sort()
	return l
}

func (l *Lint) sort() {
	slices.SortStableFunc(l.Entries, func(a, b Flagged) int {
		if c := strings.Compare(a.Kind, b.Kind); c != 0 {
			return -c // skills before prompts
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// lintShown is how many entries per rule the text report shows unless
// asked for all: enough to see what a rule catches, few enough that a
// corpus of thousands stays one screen.
const lintShown = 3

// writeText prints the findings grouped by rule: the rule's count, then
// its first entries (all with all), each with its first finding of the
// rule. The one line of an entry names the line and the code points or
// the excerpt.
func (l *Lint) writeText(w io.Writer, all bool) {
	fmt.Fprintf(w, "LINT (%d of %d flagged; lint.flagged: %s)\n", l.Flagged, l.Checked, l.Mode)
	rules := make([]string, 0, len(l.Rules))
	for _, r := range lint.Rules {
		if l.Rules[r.Name] > 0 {
			rules = append(rules, r.Name)
		}
	}
	hidden := 0
	for _, rule := range rules {
		fmt.Fprintf(w, "  %s\t%d\n", rule, l.Rules[rule])
		shown := 0
		for _, e := range l.Entries {
			i := slices.IndexFunc(e.Findings, func(f lint.Finding) bool { return f.Rule == rule })
			if i < 0 {
				continue
			}
			if !all && shown == lintShown {
				hidden += l.Rules[rule] - shown
				break
			}
			shown++
			f := e.Findings[i]
			held := ""
			if e.Withheld {
				held = " (withheld)"
			}
			fmt.Fprintf(w, "  \t%s %s%s line %d\t%s\n", e.Kind, e.ID, held, f.Line, f.Detail)
		}
	}
	if hidden > 0 {
		fmt.Fprintf(w, "  \t… %d more; skills doctor --lint-all lists them all, --json with every finding\n", hidden)
	}
}

// lintLogged bounds the boot log's lines of flagged entries; the summary
// line counts the rest.
const lintLogged = 20

// LintReport is what the content checks found in the view now.
func (d *Diagnoser) LintReport(ctx context.Context) *Lint {
	l, _ := d.view.Skills(ctx)
	pl, _ := d.view.Prompts(ctx)
	return lintOf(d.view.Flagged(), l, pl)
}

// LogLint logs what the content checks found, at boot once the engine
// connection is up (the stored entries with the files): one warning per
// flagged entry (the first lintLogged), then a summary with the counts
// per rule. Nothing is logged when nothing is flagged, so a clean
// worker's boot log is as before.
func (d *Diagnoser) LogLint(ctx context.Context) {
	l := d.LintReport(ctx)
	if l.Flagged == 0 {
		return
	}
	for i, e := range l.Entries {
		if i == lintLogged {
			break
		}
		f := e.Findings[0]
		rules := make([]string, 0, len(e.Findings))
		for _, f := range e.Findings {
			if !slices.Contains(rules, f.Rule) {
				rules = append(rules, f.Rule)
			}
		}
		d.log.Warn("content flagged", zap.String("kind", e.Kind), zap.String("id", e.ID), zap.String("origin", e.Origin),
			zap.Strings("rules", rules), zap.Int("line", f.Line), zap.String("detail", f.Detail), zap.Bool("withheld", e.Withheld))
	}
	fields := []zap.Field{zap.Int("checked", l.Checked), zap.Int("flagged", l.Flagged), zap.String("mode", l.Mode), zap.Any("rules", l.Rules)}
	if n := l.Flagged - lintLogged; n > 0 {
		fields = append(fields, zap.Int("not_logged", n))
	}
	d.log.Warn("content checks flagged entries; skills::diagnostics lists every finding", fields...)
}

// FileReader reads a scan's files as the view does (the file source
// skills doctor builds).
type FileReader interface {
	ReadSkill(path string) (raw []byte, body string, err error)
	ReadFile(path string) ([]byte, error)
}

// LintFiles is the content checks of a scan's files, read as the view
// reads them (a skill file's bytes whole, frontmatter included; a prompt
// file's bytes): what skills doctor reports offline, where no stored entry
// is known.
func LintFiles(src FileReader, s Scan, mode lint.Mode) *Lint {
	l := NewLint(mode)
	withheld := mode == lint.Withhold
	for _, sk := range s.Skills {
		raw, _, _ := src.ReadSkill(sk.Path)
		var r *lint.Report
		if raw != nil {
			r = lint.Check(string(raw))
		}
		l.Add(catalog.KindSkill, sk.ID, catalog.OriginFS, sk.Path, withheld && r != nil, r)
	}
	for _, p := range s.Prompts {
		var r *lint.Report
		if b, err := src.ReadFile(p.Path); err == nil {
			r = lint.Check(string(b))
		}
		l.Add(catalog.KindPrompt, p.Name, catalog.OriginFS, p.Path, withheld && r != nil, r)
	}
	l.sort()
	return l
}
