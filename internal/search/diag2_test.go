package search

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestDiagRanks(t *testing.T) {
	if os.Getenv("DIAG") == "" {
		t.Skip()
	}
	c := loadRoot(t, filepath.Join("testdata", "corpus", "skills"), filepath.Join("testdata", "corpus", "queries.json"))
	if os.Getenv("DIAG") == "public" {
		c = loadPublic(t)
	}
	isSkill := func(id string) bool { d := c.byID[id]; return d != nil && d.skillFile }
	var docs []Doc
	for _, d := range c.docs {
		doc := DocOf(d.id, d.name, d.served, d.body)
		doc.Parent = NearestSkill(d.id, isSkill)
		docs = append(docs, doc)
	}
	x := New()
	x.Update(docs, nil)
	for _, q := range c.needs {
		ids := groupSearcher(x)(q.Q, 10)
		r := slices.IndexFunc(ids, func(id string) bool { return slices.Contains(q.Expect, id) })
		fmt.Printf("%d\t%s\t%v\t%v\n", r, q.Q, q.Expect, ids[:min(3, len(ids))])
	}
}
