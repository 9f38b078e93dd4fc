package mcpskills

import "github.com/iii-hq/skills-go/internal/catalog"

// synthDigests keeps the digests of synthesised SKILL.md files between
// listings, by skill id, each with the key it covers (the body's digest
// and the description): rendering, not content, so the extension keeps
// it, bounded as the view bounds the folder files' digests it gives
// (catalog.Generations, docs/decisions.md D64). The view keeps those
// (View.FileDigest, D68).
type synthDigests struct {
	kept *catalog.Generations[keptSynth]
}

type keptSynth struct {
	key  string
	file mcpSkillFile
}

func newSynthDigests() synthDigests {
	return synthDigests{kept: catalog.NewGenerations[keptSynth]()}
}

// get is the kept digest of id's synthesised SKILL.md, if key matches.
func (d synthDigests) get(id, key string) (mcpSkillFile, bool) {
	k, ok := d.kept.Get(id)
	if !ok || k.key != key {
		return mcpSkillFile{}, false
	}
	return k.file, true
}

func (d synthDigests) keep(id, key string, f mcpSkillFile) {
	d.kept.Put(id, keptSynth{key: key, file: f})
}

// turn starts a generation, on a listing's first page.
func (d synthDigests) turn() { d.kept.Turn() }
