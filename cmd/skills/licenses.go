package main

import "github.com/iii-hq/skills-go/internal/search"

// licenses is what "skills licenses" prints: the notices that the data
// built into the binary requires to travel with it. skill::search expands
// queries with a table derived from WordNet 3.0 (docs/search.md), whose
// licence asks that its notice accompany every copy.
func licenses() string {
	return "skills embeds data under these notices.\n\n" +
		"== WordNet 3.0 (internal/search/wordnet: the related-words table of skill::search) ==\n\n" +
		search.Notices()
}
