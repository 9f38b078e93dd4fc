package registry

import (
	"context"

	"github.com/iii-hq/skills-go/internal/catalog"
)

// FSChanged announces what a rescan of the overlay changed
// (docs/decisions.md D21): a skill or prompt file added or changed fires
// "register" with "source":"fs" on skills::on-change or prompts::on-change,
// one removed fires "unregister"; one event per id per rescan, and nothing
// for an id a state entry shadows. A file is changed when its listing is
// not the Same (its Stamp: a replacement with the same size and mtime is
// a change). The fs watch calls it after each rescan that changed
// something.
func (r *Registry) FSChanged(ctx context.Context, old, updated catalog.FileSnapshot) {
	if r.skillsChanged != nil {
		stored := map[string]bool{}
		if l, err := r.skillListing(ctx); err == nil {
			for _, s := range l.Skills {
				if s.Origin == originState {
					stored[s.ID] = true
				}
			}
		}
		diffFS(old.Skills, updated.Skills, func(s catalog.FileSkill) string { return s.ID }, catalog.FileSkill.Same, stored, func(op, id string) {
			r.notify(ctx, r.skillsChanged, skillChange{Op: op, ID: id, Source: originFS})
		})
	}
	if r.promptsChanged != nil {
		stored := map[string]bool{}
		if l, err := r.view.Prompts(ctx); err == nil {
			for _, p := range l.Prompts {
				if p.Origin == originState {
					stored[p.Name] = true
				}
			}
		}
		diffFS(old.Prompts, updated.Prompts, func(p catalog.FilePrompt) string { return p.Name }, catalog.FilePrompt.Same, stored, func(op, name string) {
			r.notify(ctx, r.promptsChanged, promptChange{Op: op, Name: name, Source: originFS})
		})
	}
}

// diffFS calls fire with "register" for each key new or changed in
// updated and "unregister" for each key gone from it, skipping the keys
// hidden holds.
func diffFS[T any](old, updated []T, key func(T) string, same func(a, b T) bool, hidden map[string]bool, fire func(op, key string)) {
	before := make(map[string]T, len(old))
	for _, e := range old {
		before[key(e)] = e
	}
	for _, e := range updated {
		k := key(e)
		prev, existed := before[k]
		delete(before, k)
		if !hidden[k] && (!existed || !same(prev, e)) {
			fire(opRegister, k)
		}
	}
	for _, e := range old {
		if _, gone := before[key(e)]; gone && !hidden[key(e)] {
			fire(opUnregister, key(e))
		}
	}
}
