package search

import (
	"bufio"
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// tech.txt is a hand-written thesaurus of software-engineering terms
// (docs/search.md): one group of interchangeable terms per line, comma
// separated, a term one word or several. It relates "db" to "database"
// and "processor" to "cpu", which WordNet does not.
//
//go:embed thesaurus/tech.txt
var techTxt string

// techRel is one related stem and its strength, in (0, 1].
type techRel struct {
	stem     string
	strength float64
}

// techThesaurus maps a stem to its related stems, strongest first (ties
// by stem).
type techThesaurus map[string][]techRel

// loadTech parses the embedded thesaurus once, at the first search.
var loadTech = sync.OnceValue(func() techThesaurus {
	t, err := parseTech(techTxt)
	if err != nil {
		panic("search: the embedded tech thesaurus is corrupt: " + err.Error())
	}
	return t
})

// techMaxRelated bounds a stem's related stems, as WordNet's table keeps
// 12: a general stem ("data", "test") is in dozens of groups.
const techMaxRelated = 24

// parseTech reads groups of terms. Every term is analysed by Terms, so
// its stems are index stems; one-letter stems are dropped ("c#" is not
// "c"). Two stems of different terms in a group are related with
// strength 1/(n·m), where n and m are the word counts of their terms
// (stop words included): a one-word synonym is a full synonym, a stem of
// a two-word term ("roll back") half of one. A pair in several groups
// keeps its strongest strength. A stem keeps its techMaxRelated
// strongest related stems; among equals, the more specific first (the
// stem related to fewer others), then by stem.
func parseTech(text string) (techThesaurus, error) {
	best := map[[2]string]float64{}
	sc := bufio.NewScanner(strings.NewReader(text))
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		var terms [][]string
		var words []int
		for _, term := range strings.Split(s, ",") {
			var stems []string
			for _, st := range Terms(term) {
				if len(st) > 1 && !slices.Contains(stems, st) {
					stems = append(stems, st)
				}
			}
			if len(stems) > 0 {
				terms = append(terms, stems)
				words = append(words, max(wordCount(term), len(stems)))
			}
		}
		if len(terms) < 2 {
			return nil, fmt.Errorf("line %d: a group needs two terms: %.40q", line, s)
		}
		terms = headsOnly(terms)
		for i, a := range terms {
			for j, b := range terms {
				if i == j {
					continue
				}
				w := 1 / float64(words[i]*words[j])
				for _, sa := range a {
					for _, sb := range b {
						if sa == sb {
							continue
						}
						if k := [2]string{sa, sb}; w > best[k] {
							best[k] = w
						}
					}
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	t := techThesaurus{}
	for k, w := range best {
		t[k[0]] = append(t[k[0]], techRel{k[1], w})
	}
	for _, rels := range t {
		slices.SortFunc(rels, func(a, b techRel) int {
			if a.strength != b.strength {
				if a.strength > b.strength {
					return -1
				}
				return 1
			}
			if na, nb := len(t[a.stem]), len(t[b.stem]); na != nb {
				return na - nb
			}
			return strings.Compare(a.stem, b.stem)
		})
	}
	for s, rels := range t {
		if len(rels) > techMaxRelated {
			t[s] = slices.Clip(rels[:techMaxRelated])
		}
	}
	return t, nil
}

// headsOnly keeps, of each term of several stems, the stems another term
// of the group shares: its head. In "restore, recovery, restore backup",
// "backup" only says what is restored; relating it to "recovery" would
// make every backup a recovery. A term that shares no stem keeps them
// all ("point in time recovery, pitr").
func headsOnly(terms [][]string) [][]string {
	count := map[string]int{}
	for _, t := range terms {
		for _, st := range t {
			count[st]++
		}
	}
	out := make([][]string, len(terms))
	for i, t := range terms {
		if len(t) == 1 {
			out[i] = t
			continue
		}
		var heads []string
		for _, st := range t {
			if count[st] > 1 {
				heads = append(heads, st)
			}
		}
		if len(heads) == 0 {
			heads = t
		}
		out[i] = heads
	}
	return out
}

// wordCount counts the runs of letters and digits in text, as Terms
// splits it, stop words included.
func wordCount(text string) int {
	n, in := 0, false
	for _, r := range text {
		word := unicode.IsLetter(r) || unicode.IsDigit(r)
		if word && !in {
			n++
		}
		in = word
	}
	return n
}

// related calls fn for each stem related to s, with its strength.
func (t techThesaurus) related(s string, fn func(stem string, strength float64)) {
	for _, r := range t[s] {
		fn(r.stem, r.strength)
	}
}
