// Command gen turns a WordNet 3.0 database into the related-terms table
// that internal/search embeds (internal/search/wordnet/related.gz). It is
// run by hand, never at build or run time:
//
//	apt-get install -y wordnet-base   # or apt-get download it and unpack
//	go run ./internal/search/wordnet/gen -dict /usr/share/wordnet -out internal/search/wordnet/related.gz
//
// Every word is analysed by search.Terms, so the table maps index stems to
// index stems. docs/search.md describes which relations are kept and how
// they are weighted.
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/iii-hq/skills-go/internal/search"
)

// Relation weights: how much a word related by each WordNet pointer
// counts, before the sense's own weight. Synonyms (other words of the
// same synset) count 1.
var relWeight = map[string]float64{
	"syn": 1.0,
	"+":   0.8, // derivationally related form (lexical)
	"&":   0.8, // similar to (adjective clusters)
	"\\":  0.8, // pertainym / derived from adjective
	"@":   0.5, // hypernym
	"@i":  0.5, // instance hypernym
	"~":   0.5, // hyponym, when the synset has few (not used by default)
	"$":   0.5, // verb group (not used by default)
	"^":   0.5, // also see (not used by default)
	"=":   0.5, // attribute (not used by default)
	"exc": 0.9, // an irregular form's base (broke → break)
}

// Limits.
var (
	maxHyponyms = flag.Int("hyponyms", 12, "a synset's hyponyms are used only when it has at most this many")
	maxRelated  = flag.Int("max", 12, "related stems kept per stem, strongest first")
	headWeight  = flag.Float64("head", 0.5, "a noun compound's head word, against the compound (0: unused)")
	rels        = flag.String("rels", "syn,+,&,\\,@,@i,exc", "WordNet relations used")
	glossWeight = flag.Float64("gloss", 0, "the words of a sense's definition (0: unused)")
	minWeight   = flag.Float64("min", 0.1, "weakest relation kept")
)

type ptr struct {
	sym      string
	pos      byte
	off      string
	src, tgt int // 1-based word numbers of a lexical pointer, 0 for semantic
}

type synset struct {
	pos   byte
	gloss string
	words []string
	ptrs  []ptr
}

func posFile(pos byte) string {
	switch pos {
	case 'n':
		return "noun"
	case 'v':
		return "verb"
	case 'a', 's':
		return "adj"
	case 'r':
		return "adv"
	}
	return ""
}

func key(pos byte, off string) string {
	if pos == 's' {
		pos = 'a'
	}
	return string(pos) + off
}

func main() {
	dict := flag.String("dict", "/usr/share/wordnet", "WordNet 3.0 dict directory")
	out := flag.String("out", "related.gz", "table to write")
	license := flag.String("license", filepath.Join("internal", "search", "wordnet", "LICENSE"), "WordNet's licence, written at the head of the table so that every copy, the binaries' included, carries it")
	flag.Parse()
	keep := strings.Split(*rels, ",")
	for r := range relWeight {
		if !slices.Contains(keep, r) {
			delete(relWeight, r)
		}
	}

	synsets := map[string]*synset{}
	for _, pos := range []byte{'n', 'v', 'a', 'r'} {
		readLines(filepath.Join(*dict, "data."+posFile(pos)), func(line string) {
			if strings.HasPrefix(line, "  ") {
				return // the licence header
			}
			var gloss string
			if i := strings.Index(line, " | "); i >= 0 {
				line, gloss = line[:i], line[i+3:]
				if j := strings.Index(gloss, "; \""); j >= 0 {
					gloss = gloss[:j] // the examples
				}
			}
			f := strings.Fields(line)
			off, ssType := f[0], f[2][0]
			wcnt, err := strconv.ParseInt(f[3], 16, 32)
			if err != nil {
				log.Fatalf("%s: %v", line, err)
			}
			s := &synset{pos: pos, gloss: gloss}
			i := 4
			for range wcnt {
				w := f[i]
				if j := strings.IndexByte(w, '('); j >= 0 { // adjective markers: (a), (p), (ip)
					w = w[:j]
				}
				s.words = append(s.words, strings.ToLower(strings.ReplaceAll(w, "_", " ")))
				i += 2
			}
			pcnt, err := strconv.Atoi(f[i])
			if err != nil {
				log.Fatalf("%s: %v", line, err)
			}
			i++
			for range pcnt {
				st := f[i+3]
				src, _ := strconv.ParseInt(st[:2], 16, 32)
				tgt, _ := strconv.ParseInt(st[2:], 16, 32)
				s.ptrs = append(s.ptrs, ptr{sym: f[i], off: f[i+1], pos: f[i+2][0], src: int(src), tgt: int(tgt)})
				i += 4
			}
			synsets[key(ssType, off)] = s
		})
	}

	// senseCount[lemma][pos][n] is how often the lemma's nth sense of that
	// part of speech was tagged in WordNet's semantic concordances.
	senseCount := map[string]map[byte]map[int]int{}
	readLines(filepath.Join(*dict, "cntlist.rev"), func(line string) {
		f := strings.Fields(line)
		lemma, rest, _ := strings.Cut(f[0], "%")
		pos := map[byte]byte{'1': 'n', '2': 'v', '3': 'a', '4': 'r', '5': 'a'}[rest[0]]
		n, _ := strconv.Atoi(f[1])
		c, _ := strconv.Atoi(f[2])
		lemma = strings.ReplaceAll(lemma, "_", " ")
		if senseCount[lemma] == nil {
			senseCount[lemma] = map[byte]map[int]int{}
		}
		if senseCount[lemma][pos] == nil {
			senseCount[lemma][pos] = map[int]int{}
		}
		senseCount[lemma][pos][n] += c
	})

	index := map[string]map[byte][]string{} // lemma → pos → synsets, most frequent first
	for _, pos := range []byte{'n', 'v', 'a', 'r'} {
		readLines(filepath.Join(*dict, "index."+posFile(pos)), func(line string) {
			if strings.HasPrefix(line, "  ") {
				return
			}
			f := strings.Fields(line)
			lemma := strings.ReplaceAll(f[0], "_", " ")
			n, _ := strconv.Atoi(f[2])
			if index[lemma] == nil {
				index[lemma] = map[byte][]string{}
			}
			index[lemma][pos] = f[len(f)-n:]
		})
	}

	// freq is how often a lemma was tagged, plus one for each of its senses.
	freq := func(lemma string) float64 {
		total := 0
		for _, offs := range index[lemma] {
			total += len(offs)
		}
		for _, byRank := range senseCount[lemma] {
			for _, c := range byRank {
				total += c
			}
		}
		return float64(total)
	}
	// relatedOf maps the stems related to lemma to their weight: for each
	// sense, the strongest relation to the stem, times the sense's share
	// of the lemma's uses; summed over senses.
	relatedOf := func(lemma string) map[string]float64 {
		out := map[string]float64{}
		total := freq(lemma)
		for _, pos := range []byte{'n', 'v', 'a', 'r'} {
			offs := index[lemma][pos]
			for rank, off := range offs {
				share := float64(1+senseCount[lemma][pos][rank+1]) / total
				s := synsets[key(pos, off)]
				if s == nil {
					log.Fatalf("%s: no synset %c%s", lemma, pos, off)
				}
				best := map[string]float64{}
				note := func(word string, w float64) {
					if t := stem(word); t != "" {
						best[t] = max(best[t], w)
					} else if *headWeight > 0 && pos == 'n' && strings.Contains(word, " ") {
						// a noun compound is a kind of its last word
						if t := stem(word[strings.LastIndexByte(word, ' ')+1:]); t != "" {
							best[t] = max(best[t], w**headWeight)
						}
					}
				}
				if *glossWeight > 0 {
					for _, t := range search.Terms(s.gloss) {
						if usable(t) {
							best[t] = max(best[t], *glossWeight)
						}
					}
				}
				self := slices.Index(s.words, lemma) + 1
				for _, w := range s.words {
					note(w, relWeight["syn"])
				}
				if relWeight["syn"] == 0 {
					log.Fatal("synonyms are always used")
				}
				for _, p := range s.ptrs {
					rw, ok := relWeight[p.sym]
					if !ok {
						continue
					}
					t := synsets[key(p.pos, p.off)]
					if p.src != 0 {
						if p.src == self {
							note(t.words[p.tgt-1], rw)
						}
						continue
					}
					if p.sym == "~" && countPtrs(s, "~") > *maxHyponyms {
						continue
					}
					for _, w := range t.words {
						note(w, rw)
					}
				}
				for t, w := range best {
					out[t] = min(1, out[t]+w*share)
				}
			}
		}
		return out
	}

	// A stem stands for every single word that reduces to it, each in
	// proportion to how often it is used: "crash" is mostly the noun and
	// verb, seldom the British adjective "crashing".
	type use struct {
		rel  map[string]float64
		freq float64
	}
	uses := map[string][]use{}
	lemmas := make([]string, 0, len(index))
	for lemma := range index {
		lemmas = append(lemmas, lemma)
	}
	slices.Sort(lemmas) // sums in one order: the table is the same every run
	for _, lemma := range lemmas {
		if st := stem(lemma); st != "" {
			uses[st] = append(uses[st], use{relatedOf(lemma), freq(lemma)})
		}
	}
	// Irregular forms: the stemmer leaves "broke" and "stolen" alone, so
	// they stand for their base word too, and relate to it.
	for _, pos := range []byte{'n', 'v', 'a', 'r'} {
		readLines(filepath.Join(*dict, posFile(pos)+".exc"), func(line string) {
			f := strings.Fields(line)
			form := stem(f[0])
			for _, base := range f[1:] {
				base = strings.ReplaceAll(base, "_", " ")
				if form == "" || index[base] == nil || stem(base) == "" {
					continue
				}
				rel := map[string]float64{stem(base): relWeight["exc"]}
				for t, w := range relatedOf(base) {
					rel[t] = max(rel[t], relWeight["exc"]*w)
				}
				uses[form] = append(uses[form], use{rel, freq(base)})
			}
		})
	}
	related := map[string]map[string]float64{} // source stem → target stem → weight
	for st, us := range uses {
		total := 0.0
		for _, u := range us {
			total += u.freq
		}
		m := map[string]float64{}
		for _, u := range us {
			for t, w := range u.rel {
				if t != st {
					m[t] += w * u.freq / total
				}
			}
		}
		for t, w := range m {
			if w < *minWeight {
				delete(m, t)
			}
		}
		if len(m) > 0 {
			related[st] = m
		}
	}

	// The strongest related stems of each stem, then every stem that
	// appears, sorted; a line per stem: the stem, then its related stems
	// as line numbers (from 0) with weights in hundredths (1–99),
	// strongest first, so the reader needs no lookups.
	type rel struct {
		stem string
		w    float64
	}
	kept := map[string][]rel{}
	all := map[string]bool{}
	for s, m := range related {
		var rs []rel
		for t, w := range m {
			rs = append(rs, rel{t, w})
		}
		slices.SortFunc(rs, func(a, b rel) int {
			if c := cmp.Compare(b.w, a.w); c != 0 {
				return c
			}
			return strings.Compare(a.stem, b.stem)
		})
		rs = rs[:min(len(rs), *maxRelated)]
		kept[s] = rs
		all[s] = true
		for _, r := range rs {
			all[r.stem] = true
		}
	}
	stems := make([]string, 0, len(all))
	for s := range all {
		stems = append(stems, s)
	}
	slices.Sort(stems)
	line := make(map[string]int, len(stems))
	for i, s := range stems {
		line[s] = i
	}
	var buf bytes.Buffer
	pairs := 0
	for _, s := range stems {
		buf.WriteString(s)
		for _, r := range kept[s] {
			fmt.Fprintf(&buf, " %d:%d", line[r.stem], max(1, min(99, int(r.w*100+0.5))))
			pairs++
		}
		buf.WriteByte('\n')
	}
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	notice, err := os.ReadFile(*license)
	if err != nil {
		log.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	for _, line := range strings.Split(strings.TrimRight(string(notice), "\n"), "\n") {
		if _, err := fmt.Fprintf(zw, "#%s\n", strings.TrimRight(" "+line, " ")); err != nil {
			log.Fatal(err)
		}
	}
	if _, err := zw.Write(buf.Bytes()); err != nil {
		log.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	st, _ := os.Stat(*out)
	log.Printf("%d stems, %d related pairs, %d bytes of text, %d bytes compressed", len(stems), pairs, buf.Len(), st.Size())
}

func countPtrs(s *synset, sym string) int {
	n := 0
	for _, p := range s.ptrs {
		if p.sym == sym {
			n++
		}
	}
	return n
}

// stem is a word's index term, or "" for a phrase, a compound or a stop
// word: "tear down" is not "tear", nor "e-mail" "mail".
func stem(word string) string {
	if strings.ContainsAny(word, " -") {
		return ""
	}
	t := search.Terms(word)
	if len(t) != 1 || !usable(t[0]) {
		return ""
	}
	return t[0]
}

// usable: numbers and single letters are not expanded, nor expanded to
// ("five" is not "5", "'s" is not "second").
func usable(t string) bool {
	if len(t) < 2 {
		return false
	}
	for _, r := range t {
		if r < '0' || r > '9' {
			return true
		}
	}
	return false
}

func readLines(path string, fn func(string)) {
	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		fn(sc.Text())
	}
	if err := sc.Err(); err != nil {
		log.Fatal(err)
	}
}
