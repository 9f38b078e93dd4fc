package fsource

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/skillmd"
)

// Fixed reasons a prompt file is skipped.
const (
	reasonNoFrontmatter = "missing YAML frontmatter (expected --- ... --- block at file start)"
	reasonNoDescription = "frontmatter missing non-empty `description`"
)

// Prompts expands the prompt patterns: the valid prompts sorted by name
// and the skipped files with their reasons, in the order they were found.
//
// Each matched file is stat'ed and read once per call. A prompt file must
// start with YAML frontmatter whose `description` is a non-empty string;
// `name` (optional) overrides the last segment of the path-derived id.
// Skip reasons, checked in this order: "read: …", missing frontmatter,
// invalid frontmatter YAML (including a non-string name or description),
// invalid prompt name, missing description, duplicate name. Directories
// are ignored; other non-regular files and files whose real path leaves
// their root are skipped with their own reasons (see the package
// documentation).
//
// Prompts is PromptsContext without a deadline.
func (s *Source) Prompts() ([]Prompt, []Skip) {
	return s.PromptsContext(context.Background())
}

// PromptsContext is Prompts, stopped when ctx ends: the prompts loaded so
// far come back with a Skip saying the walk stopped.
func (s *Source) PromptsContext(ctx context.Context) ([]Prompt, []Skip) {
	sc := s.newScan(ctx, KindPrompt)
	matches, complete := s.expand(sc, s.promptPatterns)
	var prompts []Prompt
	first := make(map[string]string) // name -> path of the prompt that won it
	for _, m := range matches {
		if err := ctx.Err(); err != nil {
			if complete {
				sc.stopped(m.path, err)
			}
			break
		}
		p, reason, ok := sc.loadPrompt(m)
		if !ok {
			if reason != "" {
				sc.skips = append(sc.skips, Skip{Kind: KindPrompt, Path: m.path, Reason: reason})
			}
			continue
		}
		if prev, dup := first[p.Name]; dup {
			if prev == m.path {
				continue // the same file through another pattern
			}
			sc.skips = append(sc.skips, Skip{Kind: KindPrompt, Path: m.path, Reason: fmt.Sprintf("duplicate name %s also produced by %s", ids.Quote(p.Name), prev)})
			continue
		}
		first[p.Name] = m.path
		prompts = append(prompts, p)
	}
	slices.SortFunc(prompts, func(a, b Prompt) int { return cmp.Compare(a.Name, b.Name) })
	return prompts, sc.skips
}

// loadPrompt stats, reads and checks one match. ok is false with an empty
// reason for a match that is silently ignored (a directory).
func (sc *scan) loadPrompt(m match) (p Prompt, reason string, ok bool) {
	fi, err := sc.admit(m)
	if err != nil {
		return Prompt{}, admitReason("read: ", err), false
	}
	id, err := deriveID(m.prefix, m.path)
	if err != nil {
		return Prompt{}, err.Error(), false
	}
	b, err := readRegular(m.path, sc.inside(m.realRoot))
	if err != nil {
		return Prompt{}, "read: " + err.Error(), false
	}
	front, _, found := skillmd.SplitFrontmatter(b)
	if !found {
		return Prompt{}, reasonNoFrontmatter, false
	}
	meta, err := parsePromptMeta(front)
	if err != nil {
		return Prompt{}, "invalid frontmatter YAML: " + err.Error(), false
	}
	name := strings.TrimSpace(meta.name)
	if name == "" {
		name = lastSegment(id)
	}
	if err := ids.ValidatePromptName(name); err != nil {
		return Prompt{}, fmt.Sprintf("invalid prompt name %s: %v", ids.Quote(name), err), false
	}
	desc := strings.TrimSpace(meta.description)
	if desc == "" {
		return Prompt{}, reasonNoDescription, false
	}
	return Prompt{Name: name, Description: desc, Path: m.path, Size: fi.Size(), ModTime: fi.ModTime(), Stamp: StampOf(fi)}, "", true
}
