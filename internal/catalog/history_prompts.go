package catalog

import "context"

// PutPromptRevision is PutPromptVersion numbering the prompt's definition
// (D83) as PutSkillRevision numbers a skill's body: an unchanged
// definition keeps its revision and writes the row alone; any other is
// recorded in the prompts' history first, with its definition (name,
// description, arguments, function_id as JSON) as the kept body. worker
// is the writer's _caller_worker_id.
func (v *View) PutPromptRevision(ctx context.Context, row PromptRow, worker string) (int64, WriteVersion, error) {
	if v.promptLog.kept == 0 {
		ver, err := v.PutPromptVersion(ctx, row)
		return 0, ver, err
	}
	def := promptDefinition(row)
	sum := sha256Hex(def)
	stored, same := v.storedPromptRevision(row.Name, sum)
	body := string(def)
	rec := Revision{At: row.RegisteredAt, SHA256: sum, Bytes: int64(len(def)), Worker: worker, Body: &body}
	return v.promptLog.write(ctx, row.Name, stored, same, false, rec, func(rev int64) (WriteVersion, error) {
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
