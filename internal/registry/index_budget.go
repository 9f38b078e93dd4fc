package registry

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The index budget (docs/decisions.md D44): with index_max_tokens set, an
// iii://skills that would be bigger (at 4 bytes a token) folds its deepest
// level first, each parent's nested entries becoming one line that says
// how many there are and how to reach them, then the next level up, until
// it fits. The top level is never dropped without a word: if even it is
// too big, its tail becomes one line saying how many entries are left out.

// renderBudgeted renders the index within maxTokens (0: no bound) and
// the response budget.
func renderBudgeted(state, fs []bullet, maxTokens, maxResponse int) string {
	if maxTokens <= 0 {
		return renderBullets(state, fs, maxResponse)
	}
	state, fs, left := fitIndex(state, fs, maxTokens)
	if left == 0 {
		return renderBullets(state, fs, maxResponse)
	}
	note := fmt.Sprintf(indexBudgetNote, left, maxTokens)
	if len(state)+len(fs) == 0 {
		return indexIntro + strings.TrimPrefix(note, "\n")
	}
	return renderBullets(state, fs, maxResponse) + note
}

// fold is a folded group of nested entries, rendered in place of them.
type fold struct {
	parent string // the id prefix they nest under
	exists bool   // parent is itself a listed skill
	count  int
}

// foldedCount is how many skills a bullet stands for.
func (bl bullet) foldedCount() int {
	if bl.fold != nil {
		return bl.fold.count
	}
	return 1
}

// writeFold renders `<indent>- (+N nested — read iii://parent or use
// skill__search)`. It writes strings only: a builder passed to fmt would
// escape to the heap in every render of the index.
func (bl bullet) writeFold(b *strings.Builder) {
	for range bl.depth {
		b.WriteString("  ")
	}
	b.WriteString("- (+")
	b.WriteString(strconv.Itoa(bl.fold.count))
	if bl.fold.exists {
		b.WriteString(" nested — read ")
		b.WriteString(Scheme)
		b.WriteString(bl.fold.parent)
		b.WriteString(" or use skill__search)\n")
		return
	}
	b.WriteString(" nested under ")
	b.WriteString(bl.fold.parent)
	b.WriteString("/ — use skill__search)\n")
}

// foldSize is the length of the fold's line, as writeFold writes it.
func (bl bullet) foldSize() int {
	return foldLen(bl.depth, bl.fold.count, len(bl.fold.parent), bl.fold.exists)
}

// foldLen is the length of a fold's line at depth for count entries under
// a parent of parentLen bytes, listed or not.
func foldLen(depth, count, parentLen int, exists bool) int {
	n := 2*depth + len("- (+") + digits(count) + parentLen
	if exists {
		return n + len(" nested — read ") + len(Scheme) + len(" or use skill__search)\n")
	}
	return n + len(" nested under ") + len("/ — use skill__search)\n")
}

// digits is the length of n in decimal.
func digits(n int) int { return len(strconv.Itoa(n)) }

// fitIndex folds state and fs bullets (none of them folded yet) until the
// rendered index is at most maxTokens, and cuts the top level if it must.
// It returns the bullets to render and, when some top-level entries were
// cut, how many.
//
// The rule is D44's: fold the deepest level, then the next one up, until
// the index fits; then drop top-level entries from the end until it fits
// with the line that counts them. Folding at depth d straight from the
// unfolded list gives what folding every deeper level first gives, so the
// length of the index folded at each depth is computed in one pass
// (foldedLens), the depth chosen, and the lists folded once; the cut is
// measured with running sums. Nothing is rendered to be measured, so the
// cost is linear in the bullets and the bytes of their ids, whatever the
// depth (issue 27: rendering again after each level made a chain 500 deep
// among 100,000 skills cost 30 s a render).
func fitIndex(state, fs []bullet, maxTokens int) ([]bullet, []bullet, int) {
	over := func(n int) bool { return (n+3)/4 > maxTokens }
	maxDepth := 0
	for _, list := range [][]bullet{state, fs} {
		for _, bl := range list {
			maxDepth = max(maxDepth, bl.depth)
		}
	}
	roots := slices.ContainsFunc(fs, func(bl bullet) bool { return bl.root })
	fixed := indexLen(0, len(state), len(fs), roots)
	stateLens, fsLens := foldedLens(state, maxDepth), foldedLens(fs, maxDepth)
	level := maxDepth + 1 // folded at maxDepth+1: nothing folded
	for level > 1 && over(fixed+stateLens[level]+fsLens[level]) {
		level--
	}
	if level <= maxDepth {
		state, fs = foldDepth(state, level), foldDepth(fs, level)
	}
	if !over(fixed + stateLens[level] + fsLens[level]) {
		return state, fs, 0
	}
	// Only the top level is left: drop entries from the end until the
	// index, with the line that counts them, fits.
	stateSum, fsSum := prefixSums(state), prefixSums(fs)
	fsRoots := make([]int, len(fs)+1) // root bullets among the first k
	for i, bl := range fs {
		fsRoots[i+1] = fsRoots[i]
		if bl.root {
			fsRoots[i+1]++
		}
	}
	ns, nf, left := len(state), len(fs), 0
	noteTokens := func(left int) int {
		return (len(indexBudgetNote) - len("%d%d") + digits(left) + digits(maxTokens) + 3) / 4
	}
	for ns+nf > 0 && (indexLen(stateSum[ns]+fsSum[nf], ns, nf, fsRoots[nf] > 0)+3)/4+noteTokens(left+1) > maxTokens {
		if nf > 0 {
			nf--
			left += fs[nf].foldedCount()
		} else {
			ns--
			left += state[ns].foldedCount()
		}
	}
	return state[:ns], fs[:nf], left
}

// indexLen is the length renderBullets gives (with no response budget) to
// nState and nFS bullets whose lines add up to bullets bytes, the file
// skills' section named for roots or not.
func indexLen(bullets, nState, nFS int, roots bool) int {
	n := len(indexIntro) + bullets
	if nState+nFS == 0 {
		return n + len(indexEmpty)
	}
	if nFS > 0 {
		n += len(indexCustomSection)
		if roots {
			n += len(indexCustomSectionRoots) - len(indexCustomSection)
		}
		if nState > 0 {
			n++
		}
	}
	return n
}

// prefixSums are the lengths of the first k lines of list, for each k.
func prefixSums(list []bullet) []int {
	out := make([]int, len(list)+1)
	for i, bl := range list {
		out[i+1] = out[i] + bl.size()
	}
	return out
}

// foldedLens returns, for every depth d from 1 to maxDepth+1, the length
// of list's lines once folded at d (foldDepth): the lines of the bullets
// above d, and one fold line per group of bullets at d or deeper sharing
// their first d segments. list is sorted by id and not folded, so a group
// is a run of consecutive bullets (everything sorted between two ids that
// begin with "p/" begins with it too), and bullet i opens a group at every
// level from one past what it shares with bullet i-1 (the segments in
// common, at most i-1's depth) down to its own depth, and closes the
// groups of i-1 deeper than that. Each bullet costs its id's bytes and
// the levels it opens: linear in the input.
func foldedLens(list []bullet, maxDepth int) []int {
	lens := make([]int, maxDepth+2)
	listed := make(map[string]bool, len(list))
	for _, bl := range list {
		listed[bl.id] = true
	}
	above := make([]int, maxDepth+2) // lines of the bullets at each depth
	type group struct{ start, parentLen int }
	var open []group // open[d-1] is the group open at level d
	closeTo := func(level, end int, id string) {
		for len(open) > level {
			d := len(open)
			g := open[d-1]
			lens[d] += foldLen(d, end-g.start, g.parentLen, listed[id[:g.parentLen]])
			open = open[:d-1]
		}
	}
	prev := ""
	for i, bl := range list {
		above[bl.depth] += bl.size()
		shared := 0
		if i > 0 {
			shared = min(sharedSegments(prev, bl.id), list[i-1].depth, bl.depth)
		}
		closeTo(shared, i, prev)
		cut := 0 // the index of the last slash of the open groups' parent
		if len(open) > 0 {
			cut = open[len(open)-1].parentLen
		}
		for d := len(open) + 1; d <= bl.depth; d++ {
			if cut = slashAfter(bl.id, d, cut); cut < 0 {
				break
			}
			open = append(open, group{start: i, parentLen: cut})
		}
		prev = bl.id
	}
	closeTo(0, len(list), prev)
	// Folded at d: the lines of the bullets above d, and the groups at d.
	sum := 0
	for d := 1; d <= maxDepth+1; d++ {
		sum += above[d-1]
		lens[d] += sum
	}
	return lens
}

// indexBudgetNote is the last line of an index cut at index_max_tokens.
const indexBudgetNote = "\n_%d more skills are not listed: this index is cut to index_max_tokens (%d). Find skills with skill__search, or list every id with skills::list._\n"

// foldDepth replaces the bullets at depth d or deeper (folds included)
// with one fold per parent prefix of d segments. Bullets sorted by id keep
// each prefix's descendants together.
func foldDepth(list []bullet, d int) []bullet {
	var out []bullet
	listed := map[string]bool{}
	for _, bl := range list {
		if bl.fold == nil {
			listed[bl.id] = true
		}
	}
	for _, bl := range list {
		if bl.depth < d {
			out = append(out, bl)
			continue
		}
		parent := prefixOf(bl.key(), d)
		if n := len(out); n > 0 && out[n-1].fold != nil && out[n-1].depth == d && out[n-1].fold.parent == parent {
			out[n-1].fold.count += bl.foldedCount()
			out[n-1].root = out[n-1].root || bl.root
			continue
		}
		out = append(out, bullet{id: parent, depth: d, root: bl.root, fold: &fold{parent: parent, exists: listed[parent], count: bl.foldedCount()}})
	}
	return out
}

// key is what a bullet's place in the tree is named by: its id, or for a
// fold its parent.
func (bl bullet) key() string {
	if bl.fold != nil {
		return bl.fold.parent
	}
	return bl.id
}

// prefixOf is the first n segments of id.
func prefixOf(id string, n int) string {
	cut := 0
	for d := 1; d <= n; d++ {
		if cut = slashAfter(id, d, cut); cut < 0 {
			return id
		}
	}
	return id[:cut]
}

// slashAfter is the index of the n-th '/' of id, given the index of the
// (n-1)-th as from (0 for the first), or -1 when id has fewer.
func slashAfter(id string, n, from int) int {
	if n > 1 {
		from++
	}
	if i := strings.IndexByte(id[from:], '/'); i >= 0 {
		return from + i
	}
	return -1
}

// sharedSegments is how many leading segments a and b have in common.
func sharedSegments(a, b string) int {
	k := 0
	for k < len(a) && k < len(b) && a[k] == b[k] {
		k++
	}
	n := strings.Count(a[:k], "/")
	if (k == len(a) || a[k] == '/') && (k == len(b) || b[k] == '/') {
		n++
	}
	return n
}
