package catalog

import "context"

// RevisionWrite is a row to store as a revision: the row (its Revision
// is assigned here), the writer, and whether it is a new revision even
// when its body equals the stored one (a rollback).
type RevisionWrite[R SkillRow | PromptRow] struct {
	Row    R
	Worker string
	Force  bool
}

// SkillWrite is a skill's body to store as a revision.
type SkillWrite = RevisionWrite[SkillRow]

// PutSkillRevision is PutSkillVersion numbering the body (D83): a body
// equal to the stored one keeps its revision and writes nothing but the
// row (the mirror knows both, so no read is made); any other body reads
// the history, appends the next revision, drops the bodies past the kept
// count, writes the history, then the row. It returns the row's revision.
//
// With no history kept (revisions_kept 0) it is PutSkillVersion, one
// state::set, and the revision is 0.
func (v *View) PutSkillRevision(ctx context.Context, w SkillWrite) (int64, WriteVersion, error) {
	row := w.Row
	if v.skillLog.kept == 0 {
		ver, err := v.PutSkillVersion(ctx, row)
		return 0, ver, err
	}
	meta := MetaOf(row.ID, row.Skill)
	stored, same := v.storedSkillRevision(row.ID, meta.SHA256)
	body := row.Skill
	rec := Revision{At: row.RegisteredAt, SHA256: meta.SHA256, Bytes: meta.Size, Worker: w.Worker, Body: &body}
	return v.skillLog.write(ctx, row.ID, stored, same, w.Force, rec, func(rev int64) (WriteVersion, error) {
		row.Revision = rev
		return v.PutSkillVersion(ctx, row)
	})
}

// storedSkillRevision is the revision of the row the mirror holds at id,
// when the mirror can vouch that its body has digest sum and it has a
// revision.
func (v *View) storedSkillRevision(id, sum string) (rev int64, same bool) {
	s, ok := vouched(v.skills, id).(StateSkill)
	if !ok || s.Revision == 0 || s.SHA256 != sum {
		return 0, false
	}
	return s.Revision, true
}

// SkillHistory returns the revisions of the stored skill id, newest
// first; an id with no history is not_found naming it.
func (v *View) SkillHistory(ctx context.Context, id string) ([]Revision, error) {
	return v.skillLog.list(ctx, id)
}

// SkillRevisionBody is the kept body of revision n of skill id: not_found
// naming them when the id has no history, no such revision, or its body
// is no longer kept.
func (v *View) SkillRevisionBody(ctx context.Context, id string, n int64) (string, error) {
	return v.skillLog.body(ctx, id, n)
}
