package contract

// SearchResult is one skill that skill::search found: its id and iii://
// URI, title and index description, relevance score and the tokens its
// body costs to read; and the documents nested under it (its references)
// that matched the need themselves, best first.
type SearchResult struct {
	ID          string        `json:"id"`
	URI         string        `json:"uri"`
	Title       string        `json:"title"`
	Description string        `json:"description"`
	Score       float64       `json:"score"`
	Tokens      int           `json:"tokens"`
	Matched     []SearchMatch `json:"matched,omitempty"`
	// Revision is a stored skill's revision (docs/decisions.md D83);
	// absent for files and rows written with no history.
	Revision int64 `json:"revision,omitempty"`
	// Unavailable is what the skill requires that is missing now, under
	// unavailable: mark (docs/decisions.md D85); absent when available.
	Unavailable *Missing `json:"unavailable,omitempty"`
}

// SearchMatch is a document nested under a search result (a reference
// file of the skill) that matched the need: when the ranking is lexical,
// the result's score is the best of its own and these (see
// SearchResults.Ranking for a fused one).
type SearchMatch struct {
	ID    string  `json:"id"`
	URI   string  `json:"uri"`
	Title string  `json:"title"`
	Score float64 `json:"score"`
}

// SearchResults is a skill::search answer, and the structured result of
// the MCP tool skill__search: the results, best first, and how many
// skills matched at all.
type SearchResults struct {
	Results []SearchResult `json:"results"`
	Total   int            `json:"total"`
	// Ranking is RankingFused when a configured embedder's ranking was
	// fused with the lexical one: each result's score is then its
	// reciprocal-rank share (1 for the first of one ranking, 2 for the
	// first of both), its matched references keep their lexical scores,
	// and total counts the lexical matches plus the skills only the
	// embedder found. Absent when the ranking is lexical
	// (docs/search.md#an-optional-embedder).
	Ranking string `json:"ranking,omitempty"`
}

// RankingFused is SearchResults.Ranking when the ranking was fused.
const RankingFused = "fused"
