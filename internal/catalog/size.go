package catalog

// BodySize is the size of the body iii://{id} serves from a stored row,
// known without reading it when the catalog holds the row: what a reader
// holds of the bytes in flight before it reads (docs/decisions.md D64).
// ok is false when the catalog cannot say (not loaded, no such row, a row
// that does not decode); the body may then be a file's, or the engine's.
func (v *View) BodySize(id string) (size int64, ok bool) {
	if v.skills == nil {
		return 0, false
	}
	summary, ok := v.skills.summary(id)
	if s, isSkill := summary.(StateSkill); ok && isSkill {
		return s.Size, true
	}
	return 0, false
}

// summary is the summary of the entry at key, when the scope is loaded
// and holds it; unlike Get it reads no body and counts no hit.
func (s *Scope) summary(key string) (any, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.valid {
		return nil, false
	}
	if en, ok := s.entries[key]; ok && en.err == nil {
		return en.summary, true
	}
	return nil, false
}
