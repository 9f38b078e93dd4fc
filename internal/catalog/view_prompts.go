package catalog

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/iii-hq/skills-go/internal/fsource"
	"github.com/iii-hq/skills-go/internal/lint"
)

// The prompts view merges the stored prompts with the prompt files by
// the skills' rule: a stored row wins its name (docs/data-path.md#the-content-view).

// Prompt is one entry of the prompts view.
type Prompt struct {
	Name   string
	Origin string // OriginState or OriginFS
	// Row is a stored prompt's row (OriginState).
	Row PromptRow
	// File is a prompt file as listed (OriginFS).
	File fsource.Prompt
	// SHA256 is the hex digest of what defines the prompt
	// (docs/decisions.md D41): a file's bytes ("" when it cannot be
	// read), or a stored prompt's name, description, arguments and
	// function_id, not when it was registered.
	SHA256 string
	// Lint is what the content checks found (docs/decisions.md D65): in
	// a file's bytes, or in a stored prompt's description and its
	// arguments' (lintPrompt); nil when nothing.
	Lint *lint.Report
}

// PromptListing is the prompts view at one moment.
type PromptListing struct {
	Prompts  []Prompt         // sorted by name; one entry per name
	Withheld []Prompt         // flagged prompts lint.flagged withholds, sorted by name (D65)
	Shadowed []fsource.Prompt // files whose name a stored row serves
	Skips    []fsource.Skip   // files not served, and files served with a warning
}

// Prompt returns the entry with that name.
func (l PromptListing) Prompt(name string) (Prompt, bool) {
	i, ok := slices.BinarySearchFunc(l.Prompts, name, func(p Prompt, name string) int { return strings.Compare(p.Name, name) })
	if !ok {
		return Prompt{}, false
	}
	return l.Prompts[i], true
}

// Prompts returns the prompts view now. When the stored prompts cannot
// be listed the error says why and the listing holds the files alone
// (none shadowed).
func (v *View) Prompts(ctx context.Context) (PromptListing, error) {
	rows, err := v.StoredPrompts(ctx)
	files := v.Files(ctx)
	l := PromptListing{Skips: files.PromptSkips}
	var served []fsource.Prompt
	served, l.Shadowed = shadow(files.Prompts, func(f fsource.Prompt) string { return f.Name },
		rows, func(r PromptRow) string { return r.Name })
	reads := v.promptSums.values(listedOf(served, promptFile), func(i int) promptRead {
		return readPrompt(v.src, served[i].Path)
	})
	l.Prompts = make([]Prompt, 0, len(rows)+len(served))
	for _, r := range rows {
		l.Prompts = append(l.Prompts, Prompt{Name: r.Name, Origin: OriginState, Row: r, SHA256: promptDigest(r), Lint: lintPrompt(r)})
	}
	for i, f := range served {
		l.Prompts = append(l.Prompts, Prompt{Name: f.Name, Origin: OriginFS, File: f, SHA256: reads[i].sha256, Lint: reads[i].lint})
	}
	slices.SortStableFunc(l.Prompts, func(a, b Prompt) int { return strings.Compare(a.Name, b.Name) })
	if v.flagged == lint.Withhold {
		l.Prompts, l.Withheld = withhold(l.Prompts, func(p Prompt) bool { return p.Lint != nil })
	}
	return l, err
}

// promptRead is what a listing reads of a prompt file, once per Stamp.
type promptRead struct {
	sha256 string // "" when the file cannot be read
	lint   *lint.Report
}

func readPrompt(src *fsource.Source, path string) promptRead {
	b, err := src.ReadFile(path)
	if err != nil {
		return promptRead{}
	}
	return promptRead{sha256: sha256Hex(b), lint: lint.Check(string(b))}
}

// Prompt finds one prompt by the view's rule without listing them all: a
// stored row wins its name, else the prompt file of that name. The entry
// carries no SHA256 (a point read needs none). A failure to read the
// stored row is returned, not passed over to a file: a file must not
// answer for a name a row may hold.
func (v *View) Prompt(ctx context.Context, name string) (Prompt, bool, error) {
	row, found, err := v.StoredPrompt(ctx, name)
	if err != nil {
		return Prompt{}, false, err
	}
	if found {
		if err := v.refusePrompt(name, func() *lint.Report { return lintPrompt(row) }); err != nil {
			return Prompt{}, false, err
		}
		return Prompt{Name: name, Origin: OriginState, Row: row}, true, nil
	}
	files := v.Files(ctx).Prompts
	if i := slices.IndexFunc(files, func(f fsource.Prompt) bool { return f.Name == name }); i >= 0 {
		if err := v.refusePrompt(name, func() *lint.Report { return readPrompt(v.src, files[i].Path).lint }); err != nil {
			return Prompt{}, false, err
		}
		return Prompt{Name: name, Origin: OriginFS, File: files[i]}, true, nil
	}
	return Prompt{}, false, nil
}

// promptDigest is the hex SHA-256 of what defines a stored prompt.
func promptDigest(row PromptRow) string {
	return sha256Hex(promptDefinition(row))
}

// promptDefinition is what defines a stored prompt, as JSON: what its
// digest covers, and the body its history keeps (D83).
func promptDefinition(row PromptRow) []byte {
	b, _ := json.Marshal(struct {
		Name        string      `json:"name"`
		Description string      `json:"description"`
		Arguments   []PromptArg `json:"arguments"`
		FunctionID  string      `json:"function_id"`
	}{row.Name, row.Description, row.Arguments, row.FunctionID})
	return b
}
