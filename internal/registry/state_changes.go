package registry

import (
	"context"

	"github.com/iii-hq/skills-go/internal/contract"
)

// StoredSkillChanged announces on skills::on-change a change of a stored
// skill row that this worker did not write: one the catalog found by a
// state event, a reconcile or a load (docs/decisions.md D73), each once.
// The payload is a registration's or an unregistration's, as 0.2 sends
// them: a subscriber cannot tell which worker, or which engine, took the
// write. The worker's own writes are announced when they answer
// (registerSkill, unregisterSkill).
func (r *Registry) StoredSkillChanged(ctx context.Context, id string, removed bool) {
	r.notify(ctx, r.skillsChanged, skillChange{Op: storedOp(removed), ID: id})
}

// StoredPromptChanged is StoredSkillChanged for a stored prompt row, on
// prompts::on-change.
func (r *Registry) StoredPromptChanged(ctx context.Context, name string, removed bool) {
	r.notify(ctx, r.promptsChanged, promptChange{Op: storedOp(removed), Name: name})
}

func storedOp(removed bool) string {
	if removed {
		return opUnregister
	}
	return opRegister
}

// AvailabilityChanged announces on skills::on-change that skill id became
// available (missing is nil) or unavailable, with what it lacks
// (docs/decisions.md D85): {"op":"available","id"} or
// {"op":"unavailable","id","missing":{"functions":[…],"skills":[…]}}.
func (r *Registry) AvailabilityChanged(ctx context.Context, id string, missing *contract.Missing) {
	op := opAvailable
	if missing != nil {
		op = opUnavailable
	}
	r.notify(ctx, r.skillsChanged, skillChange{Op: op, ID: id, Missing: missing})
}
