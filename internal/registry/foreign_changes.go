package registry

import "context"

// Changes another writer made (docs/decisions.md D72). A write through
// this worker is announced by the handler that made it (skills.go,
// prompts.go); a write through another replica of the worker, or any
// other client of the state scope, is announced here once the catalog
// has applied it, with the 0.2 payload (no source). Only the replica the
// engine sends a type's subscribers to holds any, so each subscriber
// hears each change once.

// SkillChangedElsewhere announces on skills::on-change that skill id was
// registered (present) or unregistered by another writer.
func (r *Registry) SkillChangedElsewhere(ctx context.Context, id string, present bool) {
	r.notify(ctx, r.skillsChanged, skillChange{Op: opFor(present), ID: id})
}

// PromptChangedElsewhere announces on prompts::on-change that prompt name
// was registered (present) or unregistered by another writer.
func (r *Registry) PromptChangedElsewhere(ctx context.Context, name string, present bool) {
	r.notify(ctx, r.promptsChanged, promptChange{Op: opFor(present), Name: name})
}

func opFor(present bool) string {
	if present {
		return opRegister
	}
	return opUnregister
}
