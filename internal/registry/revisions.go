package registry

import (
	"context"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/iii"
)

// The revisions of stored skills (docs/decisions.md D83): the catalog
// numbers and keeps them (internal/catalog/history.go); these are the
// functions that show and restore them.

// callerWorkerKey is the member the engine adds to every payload with
// the calling worker's id: a new revision's writer.
const callerWorkerKey = "_caller_worker_id"

type historyInput struct {
	ID string `json:"id" jsonschema_description:"Id of the stored skill."`
}

type historyOutput struct {
	ID        string          `json:"id"`
	Revisions []revisionEntry `json:"revisions" jsonschema_description:"Newest first."`
}

type revisionEntry struct {
	Revision int64  `json:"revision" jsonschema:"minimum=1"`
	At       string `json:"at" jsonschema_description:"RFC 3339 UTC time the revision was written."`
	SHA256   string `json:"sha256" jsonschema_description:"Hex SHA-256 of the body."`
	Bytes    int64  `json:"bytes" jsonschema:"minimum=0"`
	Worker   string `json:"worker" jsonschema_description:"The engine's id of the worker that wrote it; empty when unknown."`
	Kept     bool   `json:"kept" jsonschema_description:"Whether the body is still kept, so skills::rollback can restore it (revisions_kept)."`
}

type promptHistoryInput struct {
	Name string `json:"name" jsonschema_description:"Name of the stored prompt."`
}

type promptHistoryOutput struct {
	Name      string          `json:"name"`
	Revisions []revisionEntry `json:"revisions" jsonschema_description:"Newest first."`
}

type rollbackInput struct {
	ID       string `json:"id" jsonschema_description:"Id of the stored skill."`
	Revision int64  `json:"revision" jsonschema:"minimum=1" jsonschema_description:"The revision to restore, as skills::history lists it."`
	// CallerWorker is the engine's _caller_worker_id, the new revision's writer.
	CallerWorker string `json:"_caller_worker_id,omitempty" jsonschema:"-"`
}

type promptRollbackInput struct {
	Name     string `json:"name" jsonschema_description:"Name of the stored prompt."`
	Revision int64  `json:"revision" jsonschema:"minimum=1" jsonschema_description:"The revision to restore, as prompts::history lists it."`
	// CallerWorker is the engine's _caller_worker_id, the new revision's writer.
	CallerWorker string `json:"_caller_worker_id,omitempty" jsonschema:"-"`
}

type promptRollbackOutput struct {
	Name         string `json:"name"`
	Revision     int64  `json:"revision" jsonschema_description:"The new revision, holding the restored definition."`
	RestoredFrom int64  `json:"restored_from"`
	RegisteredAt string `json:"registered_at"`
}

type rollbackOutput struct {
	ID           string `json:"id"`
	Revision     int64  `json:"revision" jsonschema_description:"The new revision, holding the restored body."`
	RestoredFrom int64  `json:"restored_from"`
	RegisteredAt string `json:"registered_at"`
}

// RevisionFunctions are skills::history, skills::rollback,
// prompts::history and prompts::rollback (D86), registered after the
// other surfaces' functions.
func (r *Registry) RevisionFunctions() []iii.Function {
	return []iii.Function{
		iii.NewFunction(contract.FnSkillsHistory, contract.SkillsHistoryDescription, r.skillHistory),
		iii.NewFunction(contract.FnSkillsRollback, contract.SkillsRollbackDescription, r.rollbackSkill),
		iii.NewFunction(contract.FnPromptsHistory, contract.PromptsHistoryDescription, r.promptHistory),
		iii.NewFunction(contract.FnPromptsRollback, contract.PromptsRollbackDescription, r.rollbackPrompt),
	}
}

// revisionEntries are the records as the history functions answer them:
// bodies left out, kept saying which could be restored.
func revisionEntries(revs []catalog.Revision) []revisionEntry {
	out := make([]revisionEntry, len(revs))
	for i, v := range revs {
		out[i] = revisionEntry{Revision: v.Revision, At: v.At, SHA256: v.SHA256, Bytes: v.Bytes, Worker: v.Worker, Kept: v.Body != nil}
	}
	return out
}

func (r *Registry) promptHistory(ctx context.Context, in promptHistoryInput) (promptHistoryOutput, error) {
	if err := ids.ValidatePromptName(in.Name); err != nil {
		return promptHistoryOutput{}, contract.Invalid(err)
	}
	revs, err := r.view.PromptHistory(ctx, in.Name)
	if err != nil {
		return promptHistoryOutput{}, err
	}
	return promptHistoryOutput{Name: in.Name, Revisions: revisionEntries(revs)}, nil
}

func (r *Registry) skillHistory(ctx context.Context, in historyInput) (historyOutput, error) {
	if err := ids.ValidateSkillID(in.ID); err != nil {
		return historyOutput{}, contract.Invalid(err)
	}
	revs, err := r.view.SkillHistory(ctx, in.ID)
	if err != nil {
		return historyOutput{}, err
	}
	return historyOutput{ID: in.ID, Revisions: revisionEntries(revs)}, nil
}

// rollbackSkill writes a kept body again as a new revision: a register of
// that body in every respect but that it is always a new revision.
func (r *Registry) rollbackSkill(ctx context.Context, in rollbackInput) (rollbackOutput, error) {
	if err := rollbackRequest(ids.ValidateSkillID(in.ID), in.Revision, contract.FnSkillsHistory); err != nil {
		return rollbackOutput{}, err
	}
	body, err := r.view.SkillRevisionBody(ctx, in.ID, in.Revision)
	if err != nil {
		return rollbackOutput{}, err
	}
	row := catalog.SkillRow{ID: in.ID, Skill: body, RegisteredAt: catalog.Timestamp(r.now())}
	rev, _, err := r.view.PutSkillRevision(ctx, catalog.SkillWrite{Row: row, Worker: in.CallerWorker, Force: true})
	if err != nil {
		return rollbackOutput{}, err
	}
	r.log.Info("skill rolled back", zap.String("skill_id", ids.Unquoted(in.ID)),
		zap.Int64("restored_from", in.Revision), zap.Int64("revision", rev))
	r.notify(ctx, r.skillsChanged, skillChange{Op: opRegister, ID: in.ID})
	return rollbackOutput{ID: in.ID, Revision: rev, RestoredFrom: in.Revision, RegisteredAt: row.RegisteredAt}, nil
}

// rollbackRequest checks a rollback's request: its id or name (keyErr is
// that check's error) and its revision, a number from 1 as the history
// function named lists them; either is invalid_argument.
func rollbackRequest(keyErr error, n int64, history string) error {
	if keyErr != nil {
		return contract.Invalid(keyErr)
	}
	if n < 1 {
		return contract.Invalidf("revision must be a revision number from 1, as %s lists them, got %d", history, n)
	}
	return nil
}

// rollbackPrompt writes a kept definition again as a new revision, as
// rollbackSkill writes a body (docs/decisions.md D86): a register of that
// definition in every respect but that it is always a new revision.
func (r *Registry) rollbackPrompt(ctx context.Context, in promptRollbackInput) (promptRollbackOutput, error) {
	if err := rollbackRequest(ids.ValidatePromptName(in.Name), in.Revision, contract.FnPromptsHistory); err != nil {
		return promptRollbackOutput{}, err
	}
	row, err := r.view.PromptRevisionRow(ctx, in.Name, in.Revision)
	if err != nil {
		return promptRollbackOutput{}, err
	}
	row.RegisteredAt = catalog.Timestamp(r.now())
	rev, _, err := r.view.PutPromptRevision(ctx, catalog.PromptWrite{Row: row, Worker: in.CallerWorker, Force: true})
	if err != nil {
		return promptRollbackOutput{}, err
	}
	r.log.Info("prompt rolled back", zap.String("prompt", in.Name),
		zap.Int64("restored_from", in.Revision), zap.Int64("revision", rev))
	r.notify(ctx, r.promptsChanged, promptChange{Op: opRegister, Name: in.Name})
	return promptRollbackOutput{Name: in.Name, Revision: rev, RestoredFrom: in.Revision, RegisteredAt: row.RegisteredAt}, nil
}
