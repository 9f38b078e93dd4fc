package search

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// related.gz is generated from WordNet 3.0 by wordnet/gen (see
// docs/search.md). It has a line per stem, sorted: the stem, then its
// related stems, strongest first, each as "n:w" where n is the related
// stem's line (from 0) and w its weight in hundredths.
//
//go:embed wordnet/related.gz
var relatedGz []byte

// Notices is the licence notice of the data this package embeds: the
// related-terms table is derived from WordNet 3.0, whose licence asks
// that its notice go with every copy. The table's leading comment lines
// carry it, so every binary does; a program that lists its licences can
// print it.
func Notices() string {
	zr, err := gzip.NewReader(bytes.NewReader(relatedGz))
	if err != nil {
		return ""
	}
	var b strings.Builder
	sc := bufio.NewScanner(zr)
	for sc.Scan() && strings.HasPrefix(sc.Text(), "#") {
		b.WriteString(strings.TrimPrefix(strings.TrimPrefix(sc.Text(), "#"), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// thesaurus is the related-terms table, compact: every stem once in
// one string, and per stem a run of (related stem, weight) pairs.
type thesaurus struct {
	blob   string   // all stems, sorted, back to back
	ends   []uint32 // ends[i] is where stem i ends in blob
	first  []uint32 // first[i]..first[i+1] are stem i's related pairs
	target []uint32 // a pair's related stem
	weight []uint8  // a pair's weight in hundredths
}

// loadThesaurus parses the embedded table once, at the first search.
var loadThesaurus = sync.OnceValue(func() *thesaurus {
	t, err := parseThesaurus(relatedGz)
	if err != nil {
		panic("search: the embedded thesaurus is corrupt: " + err.Error())
	}
	return t
})

func parseThesaurus(gz []byte) (*thesaurus, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, err
	}
	for bytes.HasPrefix(raw, []byte{'#'}) { // the licence
		_, raw, _ = bytes.Cut(raw, []byte{'\n'})
	}
	lines := bytes.Count(raw, []byte{'\n'})
	if len(raw) > 0 && raw[len(raw)-1] != '\n' {
		lines++
	}
	t := &thesaurus{ends: make([]uint32, 0, lines), first: make([]uint32, 0, lines+1)}
	var blob strings.Builder
	bad := func(line string) error { return fmt.Errorf("line %d: %.40q", len(t.ends), line) }
	for len(raw) > 0 {
		var line []byte
		line, raw, _ = bytes.Cut(raw, []byte{'\n'})
		f := strings.Fields(string(line))
		if len(f) == 0 || (len(t.ends) > 0 && f[0] <= t.stem(len(t.ends)-1)) {
			return nil, bad(string(line)) // empty, or out of order
		}
		blob.WriteString(f[0])
		t.ends = append(t.ends, uint32(blob.Len()))
		t.blob = blob.String()
		t.first = append(t.first, uint32(len(t.target)))
		for _, pair := range f[1:] {
			n, w, ok := strings.Cut(pair, ":")
			line, err1 := strconv.ParseUint(n, 10, 32)
			weight, err2 := strconv.ParseUint(w, 10, 8)
			if !ok || err1 != nil || err2 != nil || int(line) >= lines || weight < 1 || weight > 100 {
				return nil, bad(pair)
			}
			t.target = append(t.target, uint32(line))
			t.weight = append(t.weight, uint8(weight))
		}
	}
	t.first = append(t.first, uint32(len(t.target)))
	t.target, t.weight = slices.Clip(t.target), slices.Clip(t.weight)
	return t, nil
}

func (t *thesaurus) stem(i int) string {
	start := uint32(0)
	if i > 0 {
		start = t.ends[i-1]
	}
	return t.blob[start:t.ends[i]]
}

// related calls fn for each stem related to s, with its weight in (0, 1].
func (t *thesaurus) related(s string, fn func(stem string, w float64)) {
	i, ok := t.lookup(s)
	if !ok {
		return
	}
	for p := t.first[i]; p < t.first[i+1]; p++ {
		fn(t.stem(int(t.target[p])), float64(t.weight[p])/100)
	}
}

func (t *thesaurus) lookup(s string) (int, bool) {
	lo, hi := 0, len(t.ends)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.stem(m) < s {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(t.ends) && t.stem(lo) == s
}
