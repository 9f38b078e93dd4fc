package contract

// SearchResult is one skill that skill::search found: its id and iii://
// URI, title and index description, relevance score and the tokens its
// body costs to read.
type SearchResult struct {
	ID          string  `json:"id"`
	URI         string  `json:"uri"`
	Title       string  `json:"title"`
	Description string  `json:"description"`
	Score       float64 `json:"score"`
	Tokens      int     `json:"tokens"`
}

// SearchResults is a skill::search answer, and the structured result of
// the MCP tool skill__search: the results, best first, and how many
// skills matched at all.
type SearchResults struct {
	Results []SearchResult `json:"results"`
	Total   int            `json:"total"`
}
