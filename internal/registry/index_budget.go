package registry

import (
	"fmt"
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

// foldSize is the length of the fold's line.
func (bl bullet) foldSize() int {
	var b strings.Builder
	bl.writeFold(&b)
	return b.Len()
}

// fitIndex folds state and fs bullets until the rendered index is at
// most maxTokens, and cuts the top level if it must. It returns the
// bullets to render and, when some top-level entries were cut, how many.
func fitIndex(state, fs []bullet, maxTokens int) ([]bullet, []bullet, int) {
	tokens := func(s, f []bullet) int { return (len(renderBullets(s, f, 0)) + 3) / 4 }
	maxDepth := 0
	for _, bl := range append(append([]bullet{}, state...), fs...) {
		maxDepth = max(maxDepth, bl.depth)
	}
	for d := maxDepth; d >= 1 && tokens(state, fs) > maxTokens; d-- {
		state, fs = foldDepth(state, d), foldDepth(fs, d)
	}
	if tokens(state, fs) <= maxTokens {
		return state, fs, 0
	}
	// Only the top level is left: drop entries from the end until the
	// index, with the line that counts them, fits.
	left := 0
	for tokens(state, fs)+(len(fmt.Sprintf(indexBudgetNote, left+1, maxTokens))+3)/4 > maxTokens && len(state)+len(fs) > 0 {
		if len(fs) > 0 {
			left += fs[len(fs)-1].foldedCount()
			fs = fs[:len(fs)-1]
		} else {
			left += state[len(state)-1].foldedCount()
			state = state[:len(state)-1]
		}
	}
	return state, fs, left
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
	segs := strings.SplitN(id, "/", n+1)
	if len(segs) > n {
		segs = segs[:n]
	}
	return strings.Join(segs, "/")
}
