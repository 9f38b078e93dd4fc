package registry

import (
	"context"
	"fmt"

	"github.com/iii-hq/skills-go/internal/fsource"
)

// FSChanged announces what a rescan of the overlay changed
// (docs/decisions.md D21): a skill or prompt file added or changed fires
// "register" with "source":"fs" on skills::on-change or prompts::on-change,
// one removed fires "unregister"; one event per id per rescan, and nothing
// for an id a state entry shadows. The fs watch calls it after each rescan
// that changed something.
func (r *Registry) FSChanged(ctx context.Context, old, updated fsource.Snapshot) {
	if r.skillsChanged != nil {
		var shadowed []string
		if rows, err := r.skillSummaries(ctx); err == nil {
			for _, row := range rows {
				shadowed = append(shadowed, row.id)
			}
		}
		diffFS(skillStamps(old.Skills), skillStamps(updated.Skills), shadowed, func(op, id string) {
			r.notify(ctx, r.skillsChanged, skillChange{Op: op, ID: id, Source: originFS})
		})
	}
	if r.promptsChanged != nil {
		var shadowed []string
		if rows, err := r.promptRows(ctx); err == nil {
			for _, row := range rows {
				shadowed = append(shadowed, row.Name)
			}
		}
		diffFS(promptStamps(old.Prompts), promptStamps(updated.Prompts), shadowed, func(op, name string) {
			r.notify(ctx, r.promptsChanged, promptChange{Op: op, Name: name, Source: originFS})
		})
	}
}

// stamped is an fs entry's key and what identifies its content on disk.
type stamped struct{ key, stamp string }

func skillStamps(skills []fsource.Skill) []stamped {
	out := make([]stamped, len(skills))
	for i, s := range skills {
		out[i] = stamped{s.ID, fmt.Sprint(s.Path, s.Size, s.ModTime.UnixNano())}
	}
	return out
}

func promptStamps(prompts []fsource.Prompt) []stamped {
	out := make([]stamped, len(prompts))
	for i, p := range prompts {
		out[i] = stamped{p.Name, fmt.Sprint(p.Path, p.Size, p.ModTime.UnixNano(), p.Description)}
	}
	return out
}

// diffFS calls fire with "register" for each key new or changed in
// updated and "unregister" for each key gone from it, skipping shadowed
// keys.
func diffFS(old, updated []stamped, shadowed []string, fire func(op, key string)) {
	hidden := make(map[string]bool, len(shadowed))
	for _, k := range shadowed {
		hidden[k] = true
	}
	before := make(map[string]string, len(old))
	for _, e := range old {
		before[e.key] = e.stamp
	}
	for _, e := range updated {
		stamp, existed := before[e.key]
		delete(before, e.key)
		if !hidden[e.key] && (!existed || stamp != e.stamp) {
			fire(opRegister, e.key)
		}
	}
	for _, e := range old {
		if _, gone := before[e.key]; gone && !hidden[e.key] {
			fire(opUnregister, e.key)
		}
	}
}
