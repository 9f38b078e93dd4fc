package search

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/skillmd"
)

// skill::search (docs/decisions.md D40): the skills ranked for a need, over
// everything the registry serves (state, globs, roots), kept current with
// every change: the index is brought up to date with the catalog and the
// watched files before each search.
const (
	descSearch = "Searches every skill for the ones that fit a need described in words, best first: id, iii:// uri, title, description, relevance score and the tokens its body costs to read. Use it instead of reading the whole iii://skills index when you know what you need; then fetch the best hits with skill::fetch."
)

// Request limits (D40).
const (
	maxQueryChars      = 1000
	defaultSearchLimit = 8
	maxSearchLimit     = 50
)

// searchToolMetadata exposes skill::search to MCP like skill::fetch (D16).
var searchToolMetadata = json.RawMessage(`{"tool":{"label":"Search skills"},"mcp":{"expose":true},"mcp.expose":true}`)

// Request documents the request for its schema; the handler reads
// the payload itself, to word every problem.
type Request struct {
	Query     string `json:"query" jsonschema:"minLength=1,maxLength=1000" jsonschema_description:"What you need, in words: a task, a symptom, a tool name."`
	Limit     int    `json:"limit,omitempty" jsonschema:"minimum=1,maximum=50,default=8" jsonschema_description:"How many results at most (1 to 50, default 8)."`
	MaxTokens int    `json:"max_tokens,omitempty" jsonschema:"minimum=1" jsonschema_description:"Drop results from the end until the response fits this many tokens (bytes/4)."`
	Group     *bool  `json:"group,omitempty" jsonschema:"default=true" jsonschema_description:"true (default): results are skills, each with the documents nested under it that matched (its references) in matched; false: every document ranked on its own."`
	// After is additive: catalog.After (docs/decisions.md D78).
	After catalog.After `json:"after,omitempty" jsonschema_description:"Additive (docs/decisions.md D78): a version a write answered with, or a list of them; the answer includes those writes or newer values."`
}

// grouped says whether the request asks for skills (the default) rather
// than documents.
func (r Request) grouped() bool { return r.Group == nil || *r.Group }

// Function is skill::search.
func (s *Searcher) Function() iii.Function {
	return iii.Function{
		ID:             contract.FnSkillSearch,
		Description:    descSearch,
		RequestFormat:  iii.SchemaOf[Request](),
		ResponseFormat: iii.SchemaOf[contract.SearchResults](),
		Metadata:       searchToolMetadata,
		Handler: func(ctx context.Context, req iii.Request) (any, error) {
			in, err := parseSearchRequest(req.Data)
			if err != nil {
				return nil, err
			}
			out, err := s.Search(ctx, in)
			if err == nil {
				// Each result at its rank, once per answer (docs/decisions.md D84).
				usage := s.view.Usage()
				for i, res := range out.Results {
					usage.Searched(res.ID, i+1)
				}
			}
			return out, err
		},
	}
}

// parseSearchRequest reads and checks a search payload, naming what is
// wrong and what is allowed.
func parseSearchRequest(data json.RawMessage) (Request, error) {
	in := Request{Limit: defaultSearchLimit}
	var fields map[string]json.RawMessage
	if s := strings.TrimSpace(string(data)); s != "" && s != "null" {
		if err := json.Unmarshal(data, &fields); err != nil {
			return in, contract.Invalidf("the payload must be a JSON object {\"query\": string, \"limit\"?: 1-50, \"max_tokens\"?: int, \"group\"?: bool}")
		}
	}
	raw, ok := fields["query"]
	if !ok || string(raw) == "null" {
		return in, contract.Invalidf("missing field `query`: say what you need in words, e.g. {\"query\": \"restore a postgres backup\"}")
	}
	if err := json.Unmarshal(raw, &in.Query); err != nil {
		return in, contract.Invalidf("`query` must be a string of 1 to %d characters, got %s", maxQueryChars, ids.Unquoted(string(raw)))
	}
	if err := checkQuery(in.Query); err != nil {
		return in, err
	}
	if v, ok := fields["limit"]; ok && string(v) != "null" {
		n, err := wholeNumber(v)
		if err != nil || n < 1 || n > maxSearchLimit {
			return in, contract.Invalidf("`limit` must be a whole number from 1 to %d (default %d), got %s", maxSearchLimit, defaultSearchLimit, ids.Unquoted(string(v)))
		}
		in.Limit = int(n)
	}
	if v, ok := fields["max_tokens"]; ok && string(v) != "null" {
		n, err := wholeNumber(v)
		if err != nil || n < 1 {
			return in, contract.Invalidf("`max_tokens` must be a whole number of tokens from 1, got %s", ids.Unquoted(string(v)))
		}
		in.MaxTokens = int(min(n, 1<<31-1))
	}
	if v, ok := fields["group"]; ok && string(v) != "null" {
		var g bool
		if err := json.Unmarshal(v, &g); err != nil {
			return in, contract.Invalidf("`group` must be true (skills, with their matching references under each; the default) or false (every document on its own), got %s", ids.Unquoted(string(v)))
		}
		in.Group = &g
	}
	if v, ok := fields["after"]; ok {
		if err := in.After.UnmarshalJSON(v); err != nil {
			return in, err
		}
	}
	return in, nil
}

// checkQuery refuses a query no search can use: blank, too long, with
// control characters, or not valid UTF-8 (which JSON decoding turns into
// U+FFFD).
func checkQuery(q string) error {
	if strings.TrimSpace(q) == "" {
		return contract.Invalidf("`query` must have at least one character that is not a space")
	}
	if n := utf8.RuneCountInString(q); n > maxQueryChars {
		return contract.Invalidf("`query` is %d characters; at most %d", n, maxQueryChars)
	}
	for i, c := range []rune(q) {
		switch {
		case c == utf8.RuneError:
			return contract.Invalidf("`query` must be valid UTF-8 text (character %d is not)", i+1)
		case unicode.IsControl(c) && c != '\t' && c != '\n' && c != '\r':
			return contract.Invalidf("`query` may not hold control characters (U+%04X at character %d)", c, i+1)
		}
	}
	return nil
}

// wholeNumber reads a JSON number with no fraction.
func wholeNumber(raw json.RawMessage) (int64, error) {
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, err
	}
	return strconv.ParseInt(n.String(), 10, 64)
}

// Search runs one request, as parsed from a skill::search payload, over
// an index brought up to date with the view.
func (s *Searcher) Search(ctx context.Context, in Request) (contract.SearchResults, error) {
	if err := s.view.ReadAfter(ctx, in.After); err != nil {
		return contract.SearchResults{}, err
	}
	if err := s.refresh(ctx); err != nil {
		return contract.SearchResults{}, err
	}
	var hits []Hit
	var total int
	ranking := ""
	if q, ok := s.queryVector(ctx, in.Query); ok {
		hits, total = s.fusedSearch(in, q)
		ranking = contract.RankingFused
	} else {
		search := s.idx.Search
		if in.grouped() {
			search = s.idx.SearchGroups
		}
		hits, total = search(in.Query, in.Limit)
	}
	out := contract.SearchResults{Results: make([]contract.SearchResult, 0, len(hits)), Total: total, Ranking: ranking}
	for _, h := range hits {
		e, _ := s.entry(h.ID)
		out.Results = append(out.Results, contract.SearchResult{ID: h.ID, URI: contract.Scheme + h.ID, Title: e.title,
			Description: e.description, Score: roundScore(h.Score), Tokens: (e.bytes + 3) / 4, Revision: e.fingerprint.revision, Unavailable: e.unavailable})
	}
	budget := resultTokens * len(out.Results)
	if in.MaxTokens > 0 {
		budget = min(budget, in.MaxTokens)
	}
	s.addMatched(&out, hits, 4*budget)
	if in.MaxTokens > 0 {
		for len(out.Results) > 0 && estimateTokens(out) > in.MaxTokens {
			out.Results = out.Results[:len(out.Results)-1]
		}
	}
	return out, nil
}

// A result's description is cut at a word boundary near
// resultDescriptionRunes characters, and references are listed under the
// results while the answer stays within resultTokens a result, at most
// maxMatched under one: ten results fit in 1,000 tokens
// (TestTenResultsFitTheBudget), a tenth of what reading a long skill
// costs.
const (
	resultDescriptionRunes = 140
	resultTokens           = 100
	maxMatched             = 5
)

// addMatched lists under each result the references that matched, best
// first across all results, each while the answer stays within
// budgetBytes; one that does not fit is left out and the next smaller
// may still fit. hits are out's results as the index ranked them.
func (s *Searcher) addMatched(out *contract.SearchResults, hits []Hit, budgetBytes int) {
	type match struct {
		result int
		hit    Hit
	}
	var all []match
	for i, h := range hits {
		for _, m := range h.Matched[:min(len(h.Matched), maxMatched)] {
			all = append(all, match{i, m})
		}
	}
	if len(all) == 0 {
		return
	}
	slices.SortStableFunc(all, func(a, b match) int { return compareHits(a.hit, b.hit) })
	size, _ := json.Marshal(out)
	used := len(size)
	for _, m := range all {
		e, _ := s.entry(m.hit.ID)
		sm := contract.SearchMatch{ID: m.hit.ID, URI: contract.Scheme + m.hit.ID, Title: e.title, Score: roundScore(m.hit.Score)}
		b, _ := json.Marshal(sm)
		cost := len(b) + 1 // and a comma
		r := &out.Results[m.result]
		if len(r.Matched) == 0 {
			cost += len(`"matched":[]`)
		}
		if used+cost > budgetBytes {
			continue
		}
		used += cost
		r.Matched = append(r.Matched, sm)
	}
}

// shortDescription folds desc's whitespace and cuts it to about
// resultDescriptionRunes characters at the last space before, with an
// ellipsis: a word cut in half reads as another word.
func shortDescription(desc string) string {
	desc = strings.Join(strings.Fields(desc), " ")
	cut, more := skillmd.CutRunes(desc, resultDescriptionRunes)
	if !more {
		return desc
	}
	if i := strings.LastIndexByte(cut, ' '); i > resultDescriptionRunes/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:.-") + skillmd.Ellipsis
}

// roundScore keeps four decimals: enough to order, short to read.
func roundScore(s float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(s, 'f', 4, 64), 64)
	return v
}

// estimateTokens is a response's size in tokens, as bytes/4 rounded up.
func estimateTokens(v any) int {
	b, _ := json.Marshal(v)
	return (len(b) + 3) / 4
}

// Searcher serves skill::search over the content view, keeping its index
// in step with the view. Its methods may run concurrently.
type Searcher struct {
	view *catalog.View
	log  *zap.Logger
	idx  *Index

	refreshMu sync.Mutex // one refresh at a time
	key       any
	keyValid  bool

	mu    sync.RWMutex
	known []indexed // sorted by id: what the index holds

	built     chan struct{} // closed once the index was first built
	buildOnce sync.Once

	dense *dense // nil without an embedder: lexical ranking only
}

// SearcherConfig is what a Searcher needs.
type SearcherConfig struct {
	// View is the content view searched; required.
	View *catalog.View
	// Logger says when a skill could not be read for the index, and when
	// the embedder starts failing or answers again; default: no logging.
	Logger *zap.Logger
	// Embedder, when set, adds a dense ranking fused with the lexical one
	// (docs/search.md#an-optional-embedder); nil ranks lexically only.
	Embedder Embedder
	// EmbedderName names the embedder in diagnostics and logs.
	EmbedderName string
	// EmbedTimeout bounds each call to the embedder; default
	// DefaultEmbedTimeout.
	EmbedTimeout time.Duration
}

// NewSearcher returns a Searcher over cfg.View with an empty index, built
// at the first search. It panics if the view is nil: that is a wiring
// mistake, caught at start-up.
func NewSearcher(cfg SearcherConfig) *Searcher {
	if cfg.View == nil {
		panic("search: SearcherConfig.View is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	s := &Searcher{view: cfg.View, log: cfg.Logger, idx: New(), built: make(chan struct{})}
	if cfg.Embedder != nil {
		if cfg.EmbedTimeout <= 0 {
			cfg.EmbedTimeout = DefaultEmbedTimeout
		}
		s.dense = &dense{embedder: cfg.Embedder, name: cfg.EmbedderName, timeout: cfg.EmbedTimeout, log: cfg.Logger, store: newVectorStore()}
	}
	return s
}

// EmbedderStatus is what diagnostics says of the embedder; false when
// none is configured.
func (s *Searcher) EmbedderStatus() (EmbedderStatus, bool) {
	if s.dense == nil {
		return EmbedderStatus{}, false
	}
	return s.dense.status(), true
}

// queryVector is the query's vector when an embedder is configured, has
// given vectors and answers now.
func (s *Searcher) queryVector(ctx context.Context, query string) ([]float32, bool) {
	if s.dense == nil {
		return nil, false
	}
	return s.dense.queryVector(ctx, query)
}

// indexed is what the index holds for an id, and what a result shows.
type indexed struct {
	id                 string
	fingerprint        fingerprint // changes when the skill does
	title, description string
	bytes              int
	// unavailable is the listing's judgement (D85), taken at every
	// refresh: it is not part of the fingerprint, so a function that
	// comes or goes never has a skill read again.
	unavailable *contract.Missing
}

func (s *Searcher) entry(id string) (indexed, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	i, ok := slices.BinarySearchFunc(s.known, id, func(e indexed, id string) int { return strings.Compare(e.id, id) })
	if !ok {
		return indexed{}, false
	}
	return s.known[i], true
}

// fingerprint is what a skill's index entry depends on: where it comes
// from, its digest and size, and the skill it folds into. A struct, not a
// joined string, so a refresh over thousands of unchanged skills
// allocates nothing to compare them.
type fingerprint struct {
	origin, path, sha256 string
	size                 int64
	parent               string
	revision             int64 // a stored skill's (D83): a rollback to the same body is a new one
}

// refresh brings the index up to date with the view: when the view is at
// the version last indexed it does nothing; otherwise it compares every
// skill's fingerprint (origin, digest and size) with the indexed one and
// re-indexes what changed, so a registration, an unregistration or a
// file edit is searchable on the very next call. Every skill is indexed
// by its frontmatter fields as the view reads them (catalog.Meta) and its
// body without the frontmatter, whatever its origin.
func (s *Searcher) refresh(ctx context.Context) error {
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	l, err := s.view.Skills(ctx)
	if err != nil {
		return err
	}
	version, cacheable := l.Version()
	if cacheable && s.keyValid && s.key == version {
		return nil
	}
	// The listing and what the index holds are both sorted by id: one walk
	// over the two finds what came, what changed and what went, with no
	// per-skill map work (a refresh follows every change, so it is on the
	// path of a search after a registration).
	s.mu.RLock()
	known := s.known
	s.mu.RUnlock()
	next := make([]indexed, 0, len(l.Skills))
	var put []Doc
	var drop []string
	var embed []string // with an embedder: put's texts to embed
	unread := 0
	k := 0
	for _, sk := range l.Skills {
		for k < len(known) && known[k].id < sk.ID {
			drop = append(drop, known[k].id)
			k++
		}
		// The parent is part of the fingerprint: a skill served above a
		// document later folds it in without the document changing.
		parent := NearestSkill(sk.ID, func(id string) bool { return isSkill(l, id) })
		fp := fingerprint{origin: sk.Origin, path: sk.File.Path, sha256: sk.SHA256, size: sk.Size, parent: parent, revision: sk.Revision}
		var old *indexed
		if k < len(known) && known[k].id == sk.ID {
			old = &known[k]
			k++
		}
		if old != nil && old.fingerprint == fp {
			e := *old
			e.unavailable = sk.Unavailable
			next = append(next, e)
			continue
		}
		text, err := s.text(ctx, sk)
		if errors.Is(err, catalog.ErrNotText) {
			// A binary file of a skill folder (D69): indexed by its id and
			// name alone, not read again at every search.
			text, err = "", nil
		}
		if err != nil {
			s.log.Warn("search: a skill could not be read for the index; it is tried again at the next search", zap.String("id", ids.Unquoted(sk.ID)), zap.Error(err))
			unread++
			if old != nil {
				drop = append(drop, sk.ID)
			}
			continue
		}
		d := skillmd.Parse(text)
		doc := DocOf(sk.ID, sk.Name, indexDescription(sk.Meta), d.Body)
		doc.Parent = parent
		put = append(put, doc)
		if s.dense != nil {
			embed = append(embed, embedText(doc))
		}
		served := len(d.Body) // a read of a file serves its body
		if sk.Origin == catalog.OriginState {
			served = len(text) // a stored skill is read as registered
		}
		next = append(next, indexed{id: sk.ID, fingerprint: fp, title: sk.Summary.Title, description: shortDescription(indexDescription(sk.Meta)), bytes: served, unavailable: sk.Unavailable})
	}
	for ; k < len(known); k++ {
		drop = append(drop, known[k].id)
	}
	s.idx.Update(put, drop)
	if s.dense != nil {
		for _, id := range drop {
			s.dense.store.drop(id)
		}
		for i, d := range put {
			s.dense.store.put(d.ID, embed[i])
		}
	}
	s.mu.Lock()
	s.known = next
	s.mu.Unlock()
	s.key, s.keyValid = version, cacheable && unread == 0
	s.buildOnce.Do(func() { close(s.built) })
	return nil
}

// indexDescription is what the index reads as a skill's description:
// the frontmatter's whole (the listing shows it cut to 140 characters),
// else the summary's, the body's first paragraph. The view gives both for
// every origin.
func indexDescription(m catalog.Meta) string {
	if m.Description != "" {
		return m.Description
	}
	return m.Summary.Desc
}

// isSkill says whether the listing serves id as a skill that documents
// nested under it fold into: a registered skill or a SKILL.md file (a
// reference file of a root is served, but is not a skill to open).
func isSkill(l catalog.Listing, id string) bool {
	sk, ok := l.Skill(id)
	return ok && (sk.Origin == catalog.OriginState || sk.File.SkillFile)
}

// text is what is indexed of a skill: its stored body, or its whole file
// (frontmatter included; the caller parses both alike).
func (s *Searcher) text(ctx context.Context, sk catalog.Skill) (string, error) {
	if sk.Origin == catalog.OriginState {
		body, found, err := s.view.StoredSkill(ctx, sk.ID)
		if err == nil && !found {
			err = contract.NotFoundf("Skill not found: %s", ids.Unquoted(sk.ID))
		}
		return body, err
	}
	b, err := s.view.ReadFile(sk.File.Path)
	return string(b), err
}

// Follow keeps the index in step with the view until ctx ends: once the
// first search has built the index (a worker nobody searches holds none),
// it indexes after each change the view's feed reports
// (catalog.View.Next), so a search after a change seldom indexes on the
// request path. Searches bring the index up to date anyway; Follow only
// moves the work. With an embedder, Follow also asks it for the vectors
// of what changed, off the request path, and after a failure asks again
// later. Run it on a goroutine the caller owns and stops with ctx.
func (s *Searcher) Follow(ctx context.Context) {
	select {
	case <-s.built:
	case <-ctx.Done():
		return
	}
	version := s.view.Version()
	for {
		if err := s.refresh(ctx); err != nil && ctx.Err() == nil {
			s.log.Debug("search: the index could not follow a change; the next search tries again", zap.Error(err))
		}
		wait, stop := ctx, context.CancelFunc(func() {})
		if s.dense != nil {
			if retry := s.dense.embedPending(ctx); retry > 0 {
				wait, stop = context.WithTimeout(ctx, retry)
			}
		}
		next, err := s.view.Next(wait, version)
		stop()
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			version = next
		}
	}
}
