package search

// bleveIndex is the same index built on bleve v2 (BM25 scoring, the
// same fields, weights and analysis), kept to compare with ours on the
// corpus: see TestOwnIndexBeatsBleve and docs/search.md.

import (
	"errors"
	"fmt"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/regexp"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Field names and their weights: a word in the id or the title says more
// about a skill than the same word somewhere in its body.
var bleveFields = []struct {
	name  string
	boost float64
}{
	{"id", 3.0},
	{"title", 2.5},
	{"description", 2.0},
	{"headings", 1.5},
	{"body", 1.0},
}

// bleveAnalyzer is the one analyzer of every field and of queries.
const bleveAnalyzer = "skills_text"

type bleveIndex struct {
	mu  sync.RWMutex
	idx bleve.Index
}

// newBleve returns an empty bleve index.
func newBleve() (*bleveIndex, error) {
	m := bleve.NewIndexMapping()
	if err := m.AddCustomTokenizer("skills_words", map[string]any{
		"type": regexp.Name, "regexp": `[\p{L}\p{N}]+`,
	}); err != nil {
		return nil, err
	}
	if err := m.AddCustomAnalyzer(bleveAnalyzer, map[string]any{
		"type":          custom.Name,
		"tokenizer":     "skills_words",
		"token_filters": []any{lowercase.Name, en.StopName, en.SnowballStemmerName},
	}); err != nil {
		return nil, err
	}
	m.DefaultAnalyzer = bleveAnalyzer
	m.ScoringModel = "bm25"
	doc := bleve.NewDocumentStaticMapping()
	for _, f := range bleveFields {
		fm := bleve.NewTextFieldMapping()
		fm.Analyzer = bleveAnalyzer
		fm.Store = false
		fm.IncludeTermVectors = false
		fm.IncludeInAll = false
		fm.DocValues = false
		doc.AddFieldMappingsAt(f.name, fm)
	}
	m.DefaultMapping = doc
	idx, err := bleve.NewUsing("", m, scorch.Name, scorch.Name, nil)
	if err != nil {
		return nil, fmt.Errorf("search index: %w", err)
	}
	return &bleveIndex{idx: idx}, nil
}

// Close releases the index and stops its goroutines.
func (x *bleveIndex) Close() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.idx.Close()
}

// fieldsOf is the document bleve indexes for d.
func bleveDoc(d Doc) map[string]any {
	return map[string]any{
		"id":          d.ID,
		"title":       d.Title,
		"description": d.Description,
		"headings":    d.Headings,
		"body":        d.Body,
	}
}

// Update adds or replaces put and removes the ids in drop, in one batch.
func (x *bleveIndex) Update(put []Doc, drop []string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	b := x.idx.NewBatch()
	for _, d := range put {
		if err := b.Index(d.ID, bleveDoc(d)); err != nil {
			return err
		}
	}
	for _, id := range drop {
		b.Delete(id)
	}
	return x.idx.Batch(b)
}

// Search ranks the documents for text and returns the first limit hits
// and how many documents matched at all. A text with no searchable word
// (only stop words or punctuation) matches nothing.
func (x *bleveIndex) Search(text string, limit int) ([]Hit, int, error) {
	if limit < 1 {
		return nil, 0, errors.New("search: limit must be positive")
	}
	var qs []query.Query
	for _, f := range bleveFields {
		q := bleve.NewMatchQuery(text)
		q.SetField(f.name)
		q.Analyzer = bleveAnalyzer
		q.SetBoost(f.boost)
		qs = append(qs, q)
	}
	req := bleve.NewSearchRequestOptions(bleve.NewDisjunctionQuery(qs...), limit, 0, false)
	x.mu.RLock()
	res, err := x.idx.Search(req)
	x.mu.RUnlock()
	if err != nil {
		return nil, 0, err
	}
	hits := make([]Hit, len(res.Hits))
	for i, h := range res.Hits {
		hits[i] = Hit{ID: h.ID, Score: h.Score}
	}
	return hits, int(res.Total), nil
}
