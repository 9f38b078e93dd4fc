package catalog

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
)

// PromptWrite is a prompt's definition to store as a revision (D86).
type PromptWrite = RevisionWrite[PromptRow]

// PutPromptRevision is PutPromptVersion numbering the prompt's definition
// (D83) as PutSkillRevision numbers a skill's body: an unchanged
// definition keeps its revision and writes the row alone (unless
// forced); any other is recorded in the prompts' history first, with its
// definition (name, description, arguments, function_id as JSON) as the
// kept body. w.Worker is the writer's _caller_worker_id.
func (v *View) PutPromptRevision(ctx context.Context, w PromptWrite) (int64, WriteVersion, error) {
	row := w.Row
	if v.promptLog.kept == 0 {
		ver, err := v.PutPromptVersion(ctx, row)
		return 0, ver, err
	}
	def := promptDefinition(row)
	sum := sha256Hex(def)
	stored, same := v.storedPromptRevision(row.Name, sum)
	body := string(def)
	rec := Revision{At: row.RegisteredAt, SHA256: sum, Bytes: int64(len(def)), Worker: w.Worker, Body: &body}
	return v.promptLog.write(ctx, row.Name, stored, same, w.Force, rec, func(rev int64) (WriteVersion, error) {
		row.Revision = rev
		return v.PutPromptVersion(ctx, row)
	})
}

// storedPromptRevision is the revision of the row the mirror holds at
// name, when the mirror can vouch that its definition has digest sum and
// it has a revision.
func (v *View) storedPromptRevision(name, sum string) (rev int64, same bool) {
	row, ok := vouched(v.prompts, name).(PromptRow)
	if !ok || row.Revision == 0 || promptDigest(row) != sum {
		return 0, false
	}
	return row.Revision, true
}

// PromptHistory returns the revisions of the stored prompt name, newest
// first; a name with no history is not_found naming it.
func (v *View) PromptHistory(ctx context.Context, name string) ([]Revision, error) {
	return v.promptLog.list(ctx, name)
}

// PromptRevisionRow is the kept definition of revision n of prompt name,
// as a row to store again (its RegisteredAt and Revision unset):
// not_found naming them when the name has no history, no such revision,
// or its definition is no longer kept (docs/decisions.md D86).
func (v *View) PromptRevisionRow(ctx context.Context, name string, n int64) (PromptRow, error) {
	def, err := v.promptLog.body(ctx, name, n)
	if err != nil {
		return PromptRow{}, err
	}
	var row PromptRow
	if err := json.Unmarshal([]byte(def), &row); err != nil || row.Name != name {
		return PromptRow{}, contract.UnavailableMsg(fmt.Errorf("decode revision %d of prompt %s: the kept definition is not one this worker wrote (%.80q)", n, ids.Unquoted(name), def))
	}
	if row.Arguments == nil {
		row.Arguments = []PromptArg{}
	}
	return row, nil
}
