package registry

import (
	"fmt"
	"strings"
	"testing"
)

func budgetBullets(ids ...string) []bullet {
	out := make([]bullet, len(ids))
	for i, id := range ids {
		out[i] = newBullet(indexEntry{id: id, body: "# " + id + "\n\nAbout " + id + "."})
	}
	return out
}

// The deepest level folds first, one line per parent, then the next
// level; what is left of the top level is never dropped without a line
// that counts it (D44).
func TestIndexFoldsToItsBudget(t *testing.T) {
	state := budgetBullets("acme", "acme/billing", "acme/billing/refunds", "acme/billing/refunds/partial", "acme/onboarding", "beta", "gamma/x/y")
	full := renderBullets(state, nil, 0)

	s, f, left := fitIndex(state, nil, (len(full)+3)/4)
	if left != 0 || renderBullets(s, f, 0) != full {
		t.Errorf("an index within its budget changed:\n%s", renderBullets(s, f, 0))
	}

	// One level folded: the refunds subtree's deepest entry.
	s, _, _ = fitIndex(state, nil, (len(full)+3)/4-5)
	text := renderBullets(s, nil, 0)
	if !strings.Contains(text, "      - (+1 nested — read iii://acme/billing/refunds or use skill__search)\n") ||
		strings.Contains(text, "refunds/partial`") {
		t.Errorf("deepest level not folded first:\n%s", text)
	}

	// Down to the top level: one fold per top-level parent; a parent that
	// is not a skill is named as a prefix.
	top := foldDepth(foldDepth(foldDepth(state, 3), 2), 1)
	topTokens := (len(renderBullets(top, nil, 0)) + 3) / 4
	text = renderBudgeted(state, nil, topTokens, 0)
	for _, want := range []string{
		"- [`acme`](iii://acme)",
		"  - (+4 nested — read iii://acme or use skill__search)\n",
		"- [`beta`](iii://beta)",
		"  - (+1 nested under gamma/ — use skill__search)\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("folded to the top level, no %q in:\n%s", want, text)
		}
	}
	if (len(text)+3)/4 > topTokens || strings.Contains(text, "more skills are not listed") {
		t.Errorf("the top level fits in %d tokens without a cut:\n%s", topTokens, text)
	}

	// Not even the top level fits: the tail goes, counted.
	budget := topTokens - 10
	s, f, left = fitIndex(state, nil, budget)
	text = renderBudgeted(state, nil, budget, 0)
	counted := 0
	for _, bl := range append(s, f...) {
		counted += bl.foldedCount()
	}
	if left == 0 || counted+left != len(state) || (len(text)+3)/4 > budget ||
		!strings.Contains(text, fmt.Sprintf("_%d more skills are not listed: this index is cut to index_max_tokens (%d)", left, budget)) {
		t.Errorf("cut top level: %d shown, %d left out, of %d:\n%s", counted, left, len(state), text)
	}
	// A budget below the introduction still says what is left out.
	text = renderBudgeted(state, nil, 1, 0)
	if strings.Contains(text, indexEmpty) || !strings.Contains(text, "_7 more skills are not listed") {
		t.Errorf("a budget of 1 token:\n%s", text)
	}
}

// The file skills' heading names roots while a root's skill is listed,
// even when the budget folds it into a line that stands for it; without
// one it is 0.2's.
func TestCustomSectionNamesRootsThroughFolds(t *testing.T) {
	fs := []bullet{{id: "a", title: "A"}, {id: "a/x", depth: 1, title: "X", root: true}}
	if got := customSection(fs); got != indexCustomSectionRoots {
		t.Errorf("listed: heading %q, want the roots heading", got)
	}
	if got := customSection(foldDepth(fs, 1)); got != indexCustomSectionRoots {
		t.Errorf("folded: heading %q, want the roots heading", got)
	}
	if got := customSection(fs[:1]); got != indexCustomSection {
		t.Errorf("globs only: heading %q, want 0.2's", got)
	}
}

// A fold line's length is measured without writing it; the measure is
// what writeFold writes.
func TestFoldSizeIsTheWrittenLength(t *testing.T) {
	for _, bl := range []bullet{
		{depth: 1, fold: &fold{parent: "acme", exists: true, count: 1}},
		{depth: 3, fold: &fold{parent: "a/b/c", count: 12345}},
		{depth: 499, fold: &fold{parent: strings.Repeat("c/", 498) + "c", exists: true, count: 1}},
	} {
		var b strings.Builder
		bl.writeFold(&b)
		if bl.foldSize() != b.Len() {
			t.Errorf("foldSize %d, written %d: %q", bl.foldSize(), b.Len(), b.String())
		}
	}
	for _, c := range []struct {
		id   string
		n    int
		want string
	}{{"a/b/c", 1, "a"}, {"a/b/c", 2, "a/b"}, {"a/b/c", 3, "a/b/c"}, {"a", 1, "a"}} {
		if got := prefixOf(c.id, c.n); got != c.want {
			t.Errorf("prefixOf(%q, %d) = %q, want %q", c.id, c.n, got, c.want)
		}
	}
}
