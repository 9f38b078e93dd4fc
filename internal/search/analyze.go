package search

import (
	"strings"
	"unicode"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
)

// Terms analyses text into index terms: runs of letters and digits (so
// an id splits on / - _ and any punctuation), lower-cased, without the
// English words that carry no topic, each reduced to its stem by the
// Snowball English stemmer (so "backups", "backing" and "backup" meet).
func Terms(text string) []string { return terms(text, true) }

// terms is Terms, with or without the stemmer (tuning.noStem, a trial of
// docs/search.md).
func terms(text string, stem bool) []string {
	var out []string
	start := -1
	for i, r := range text {
		word := unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			out = appendTerm(out, text[start:i], stem)
			start = -1
		}
	}
	if start >= 0 {
		out = appendTerm(out, text[start:], stem)
	}
	return out
}

// maxTermBytes bounds a term: longer runs (hashes, base64) are not words
// anyone searches for.
const maxTermBytes = 64

func appendTerm(out []string, word string, stem bool) []string {
	if len(word) > maxTermBytes {
		return out
	}
	w := strings.ToLower(word)
	if stopWords[w] {
		return out
	}
	if !stem {
		return append(out, w)
	}
	env := snowballstem.NewEnv(w)
	english.Stem(env)
	return append(out, env.Current())
}

// stopWords are English function words: they say nothing about which
// skill a need is for.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be because
		been before being below between both but by can could did do does doing down during each
		few for from further had has have having he her here hers herself him himself his how i if
		in into is it its itself just me more most my myself no nor not now of off on once only or
		other our ours ourselves out over own same she should so some such than that the their
		theirs them themselves then there these they this those through to too under until up very
		was we were what when where which while who whom why will with would you your yours
		yourself yourselves i'm it's don't can't won't i've we're they're let's`) {
		m[w] = true
	}
	return m
}()
