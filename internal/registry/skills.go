package registry

import (
	"context"
	"strings"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
)

// Origins of a listed entry.
const (
	originState = catalog.OriginState
	originFS    = catalog.OriginFS
)

// Change-event operations.
const (
	opRegister   = "register"
	opUnregister = "unregister"
	// A skill whose requirements became met or unmet (D85).
	opAvailable   = "available"
	opUnavailable = "unavailable"
)

// emptyInput is the payload of list-style functions: any object (unknown
// keys such as cursor or _meta are ignored) or null.
type emptyInput struct{}

// readInput is the payload of the listings that take nothing but `after`
// (skills::list, prompts::list): otherwise as emptyInput.
type readInput struct {
	After catalog.After `json:"after,omitempty" jsonschema_description:"Additive (docs/decisions.md D78): a version a write answered with, or a list of them; the answer includes those writes or newer values."`
}

// listSkillsInput is skills::list's payload: readInput's, and whether to
// name each stored entry's revision.
type listSkillsInput struct {
	readInput
	// Revision is opt-in so that a 0.2 caller gets 0.2's bytes (D83).
	Revision bool `json:"revision,omitempty" jsonschema_description:"Additive (docs/decisions.md D83): true to have each stored skill's entry name its revision (as skills::history numbers them)."`
}

type registerSkillInput struct {
	ID    string `json:"id" jsonschema_description:"Unique skill id: one or more '/'-separated segments of lowercase ASCII letters, digits, '-' and '_' (max 64 chars per segment, 1024 in total); the first segment may not be 'fn'."`
	Skill string `json:"skill" jsonschema_description:"Markdown body served at iii://{id}."`
	// Version is additive: 0.2's answer is unchanged unless asked (D78).
	Version bool `json:"version,omitempty" jsonschema_description:"Additive (docs/decisions.md D78): true to have the answer name this write's version, to pass as after to a later read on any replica."`
	// CallerWorker is the engine's _caller_worker_id: the writer a new
	// revision records (D83). Not part of the schema: the engine adds it.
	CallerWorker string `json:"_caller_worker_id,omitempty" jsonschema:"-"`
}

type registerSkillOutput struct {
	ID           string `json:"id"`
	RegisteredAt string `json:"registered_at"`
	Version      string `json:"version,omitempty" jsonschema_description:"Additive (docs/decisions.md D78), only when the request asked for it: the version of this write. Pass it as after to a read on any replica, and the read answers with this write or a newer one."`
}

type unregisterSkillInput struct {
	ID      string `json:"id" jsonschema_description:"Id of the skill to remove."`
	Version bool   `json:"version,omitempty" jsonschema_description:"Additive (docs/decisions.md D78): true to have the answer name this write's version, to pass as after to a later read on any replica."`
}

type unregisterSkillOutput struct {
	ID      string `json:"id"`
	Removed bool   `json:"removed"`
	Version string `json:"version,omitempty" jsonschema_description:"Additive (docs/decisions.md D78), only when the request asked for it: the version of this write. Pass it as after to a read on any replica, and the read answers with this write or a newer one."`
}

type listSkillsOutput struct {
	Skills []skillEntry `json:"skills"`
}

type skillEntry struct {
	ID           string             `json:"id"`
	Bytes        int64              `json:"bytes" jsonschema:"minimum=0" jsonschema_description:"Body length in bytes (for fs entries: file size, frontmatter included)."`
	RegisteredAt string             `json:"registered_at" jsonschema_description:"RFC 3339 UTC time of the last registration (for fs entries: file modification time, or empty when unknown)."`
	Origin       string             `json:"origin" jsonschema:"enum=state,enum=fs" jsonschema_description:"'state' for state-backed entries, 'fs' for filesystem-backed."`
	Tokens       int64              `json:"tokens" jsonschema:"minimum=0" jsonschema_description:"What reading it costs an agent: bytes/4, rounded up."`
	SHA256       string             `json:"sha256,omitempty" jsonschema_description:"Hex SHA-256 of the bytes counted by bytes (the body; for fs entries the whole file). Absent for a file that cannot be read."`
	Lint         []catalog.LintNote `json:"lint,omitempty" jsonschema_description:"Only on entries the content checks flagged, under lint.flagged: note: each rule and the line it flagged. skills::diagnostics has the details."`
	Revision     int64              `json:"revision,omitempty" jsonschema_description:"Only when the request asked for it (revision: true), and only on stored entries with one: the body's revision (docs/decisions.md D83)."`
	Unavailable  *contract.Missing  `json:"unavailable,omitempty" jsonschema_description:"Only on skills whose requirements are not met now (their iii://fn links and frontmatter requires; docs/decisions.md D85): the functions the engine does not offer and the required skills not served."`
}

// skillChange is the skills::on-change payload.
type skillChange struct {
	Op     string `json:"op"`
	ID     string `json:"id"`
	Source string `json:"source,omitempty"` // "fs" for file changes (D21); absent for state, as in 0.2
	// Missing is what an unavailable skill lacks (D85); absent otherwise.
	Missing *contract.Missing `json:"missing,omitempty"`
}

func (r *Registry) registerSkill(ctx context.Context, in registerSkillInput) (registerSkillOutput, error) {
	if err := ids.ValidateSkillID(in.ID); err != nil {
		return registerSkillOutput{}, contract.Invalid(err)
	}
	if strings.TrimSpace(in.Skill) == "" {
		return registerSkillOutput{}, contract.Invalidf("skill must be non-empty")
	}
	if len(in.Skill) > catalog.MaxBodyBytes {
		return registerSkillOutput{}, contract.Invalidf("skill body too large (%d bytes; max %d)", len(in.Skill), catalog.MaxBodyBytes)
	}
	row := catalog.SkillRow{ID: in.ID, Skill: in.Skill, RegisteredAt: catalog.Timestamp(r.now())}
	_, ver, err := r.view.PutSkillRevision(ctx, catalog.SkillWrite{Row: row, Worker: in.CallerWorker})
	if err != nil {
		return registerSkillOutput{}, err
	}
	r.log.Info("skill registered", zap.String("skill_id", ids.Unquoted(in.ID)))
	r.notify(ctx, r.skillsChanged, skillChange{Op: opRegister, ID: in.ID})
	return registerSkillOutput{ID: in.ID, RegisteredAt: row.RegisteredAt, Version: versionIf(in.Version, ver)}, nil
}

func (r *Registry) unregisterSkill(ctx context.Context, in unregisterSkillInput) (unregisterSkillOutput, error) {
	if err := ids.ValidateSkillID(in.ID); err != nil {
		return unregisterSkillOutput{}, contract.Invalid(err)
	}
	removed, ver, err := r.view.DeleteSkillVersion(ctx, in.ID)
	if err != nil {
		return unregisterSkillOutput{}, err
	}
	r.log.Info("skill unregister", zap.String("skill_id", ids.Unquoted(in.ID)), zap.Bool("removed", removed))
	if removed {
		r.notify(ctx, r.skillsChanged, skillChange{Op: opUnregister, ID: in.ID})
	}
	return unregisterSkillOutput{ID: in.ID, Removed: removed, Version: versionIf(in.Version, ver)}, nil
}

// versionIf is the token of ver for a write's answer when the request
// asked for it ("version": true), else "" (left out): 0.2's answers stay
// as they were for 0.2's callers (docs/decisions.md D78).
func versionIf(asked bool, ver catalog.WriteVersion) string {
	if !asked {
		return ""
	}
	return ver.Token()
}

// listSkills renders skills::list anew; the function answers through
// encodedList, which keeps this answer encoded per listing version and
// reads after the input's versions first.
func (r *Registry) listSkills(ctx context.Context, in listSkillsInput) (listSkillsOutput, error) {
	l, err := r.skillListing(ctx)
	if err != nil {
		return listSkillsOutput{}, err
	}
	return r.listOf(l, r.Budgets(), in.Revision), nil
}

// listOf is the skills::list answer for listing l within budgets b, with
// each stored entry's revision when withRevision (D83).
func (r *Registry) listOf(l catalog.Listing, b Budgets, withRevision bool) listSkillsOutput {
	out := listSkillsOutput{Skills: make([]skillEntry, len(l.Skills))}
	for i, s := range l.Skills {
		out.Skills[i] = skillEntry{ID: s.ID, Bytes: s.Size, RegisteredAt: s.RegisteredAt, Origin: s.Origin,
			Tokens: tokensOf(s.Size), SHA256: s.SHA256, Lint: r.lintNotes(s.Lint), Unavailable: s.Unavailable}
		if withRevision {
			out.Skills[i].Revision = s.Revision
		}
	}
	if listBytes(out.Skills) > b.MaxResponseBytes {
		// D41's digests are additive: a listing that fitted the budget
		// without them must still arrive, so past it they are left out.
		for i := range out.Skills {
			out.Skills[i].SHA256 = ""
		}
	}
	return out
}

// listBytes is a skills::list response's size, estimated from above (each
// row's keys and punctuation, a 20-digit bound per number, its strings
// as if no byte needed escaping twice).
func listBytes(rows []skillEntry) int {
	n := len(`{"skills":[]}`)
	for _, e := range rows {
		n += len(`{"id":"","bytes":,"registered_at":"","origin":"","tokens":,"sha256":"","revision":},`) +
			2*len(e.ID) + len(e.RegisteredAt) + len(e.Origin) + len(e.SHA256) + 60 + lintNotesBytes(e.Lint) + unavailableBytes(e.Unavailable)
	}
	return n
}

// tokensOf is what n bytes cost an agent to read: n/4, rounded up (D41).
func tokensOf(n int64) int64 { return (n + 3) / 4 }

// unavailableBytes bounds an entry's unavailable field from above.
func unavailableBytes(u *contract.Missing) int {
	if u == nil {
		return 0
	}
	n := len(`,"unavailable":{"functions":[],"skills":[]}`)
	for _, list := range [][]string{u.Functions, u.Skills} {
		for _, s := range list {
			n += 2*len(s) + 3
		}
	}
	return n
}
