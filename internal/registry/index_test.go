package registry

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/iii-hq/skills-go/internal/iii"
)

const wantIntro = "# Skills\n\nRead each skill's resource for orientation on when and why to call its functions. Sub-skills are indented under their parent path so a top-level skill stays small and the LLM can drill in only when it needs more detail.\n\n"

const wantCustom = "## Custom skills\n\nLoaded from `skills:` glob patterns in the worker config. The file system is the source of truth for these entries.\n\n"

func TestRenderIndex(t *testing.T) {
	tests := []struct {
		name      string
		state, fs []indexEntry
		want      string
	}{
		{
			name: "empty",
			want: wantIntro + "_No skills are currently registered._\n",
		},
		{
			name: "worked example",
			state: []indexEntry{
				{id: "resend", body: "# resend\n\nEmail provider integration.\n"},
				{id: "resend/email", body: "# resend/email\n\nEmail flows.\n"},
			},
			fs: []indexEntry{{id: "team-a/playbook", body: "# Team A playbook\n\nTop-level body.\n"}},
			want: wantIntro +
				"- [`resend`](iii://resend) — resend — Email provider integration.\n" +
				"  - [`resend/email`](iii://resend/email) — resend/email — Email flows.\n" +
				"\n" + wantCustom +
				"  - [`team-a/playbook`](iii://team-a/playbook) — Team A playbook — Top-level body.\n",
		},
		{
			name:  "state only, no title, no description",
			state: []indexEntry{{id: "bare", body: "## only a subheading\n"}, {id: "deep/er/still", body: "# Deep\n"}},
			want: wantIntro +
				"- [`bare`](iii://bare) — bare\n" +
				"    - [`deep/er/still`](iii://deep/er/still) — Deep\n",
		},
		{
			name: "fs only has no blank line before the section",
			fs:   []indexEntry{{id: "tree", body: "# Tree\n\nRoot."}, {id: "tree/leaf", body: "# Leaf\n\nA leaf."}},
			want: wantIntro + wantCustom +
				"- [`tree`](iii://tree) — Tree — Root.\n" +
				"  - [`tree/leaf`](iii://tree/leaf) — Leaf — A leaf.\n",
		},
		{
			name: "unreadable fs file is listed under its id",
			fs:   []indexEntry{{id: "broken", body: ""}},
			want: wantIntro + wantCustom + "- [`broken`](iii://broken) — broken\n",
		},
		{
			name:  "empty title is kept",
			state: []indexEntry{{id: "blank", body: "# \n\ntext"}},
			want:  wantIntro + "- [`blank`](iii://blank) —  — text\n",
		},
		{
			name: "a SKILL.md uses its frontmatter: the description, and the name when the body has no title",
			fs: []indexEntry{
				{id: "pdf", body: "Fill forms with the scripts.\n", name: "pdf-tools", description: "Fill PDF forms.\nUse for any PDF."},
				{id: "pdf/references/forms", body: "# Forms\n\nThe form fields.\n"},
				{id: "xlsx", body: "# Spreadsheets\n\nBody text.\n", name: "xlsx", description: strings.Repeat("y", 150)},
			},
			want: wantIntro + wantCustom +
				"- [`pdf`](iii://pdf) — pdf-tools — Fill PDF forms. Use for any PDF.\n" +
				"    - [`pdf/references/forms`](iii://pdf/references/forms) — Forms — The form fields.\n" +
				"- [`xlsx`](iii://xlsx) — Spreadsheets — " + strings.Repeat("y", 140) + "...\n",
		},
		{
			name:  "long description is cut to 140 characters",
			state: []indexEntry{{id: "long", body: "# L\n\n" + strings.Repeat("x", 141)}},
			want:  wantIntro + "- [`long`](iii://long) — L — " + strings.Repeat("x", 140) + "...\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := renderIndex(tt.state, tt.fs)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("index mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestIndexReadsStateSortedByID(t *testing.T) {
	f := newFixture(t, nil)
	// Registered out of order; '-' sorts before '/', so tree-2 lands
	// between tree and tree/leaf.
	for _, id := range []string{"tree/leaf", "tree-2", "tree", "alpha"} {
		f.mustRegisterSkill(t, id, "# "+id+"\n\nAbout "+id+".\n")
	}
	want := wantIntro +
		"- [`alpha`](iii://alpha) — alpha — About alpha.\n" +
		"- [`tree`](iii://tree) — tree — About tree.\n" +
		"- [`tree-2`](iii://tree-2) — tree-2 — About tree-2.\n" +
		"  - [`tree/leaf`](iii://tree/leaf) — tree/leaf — About tree/leaf.\n"
	if diff := cmp.Diff(want, f.reg.index(f.ctx)); diff != "" {
		t.Errorf("index mismatch (-want +got):\n%s", diff)
	}
}

func TestIndexStateFailure(t *testing.T) {
	f := newFixture(t, nil)
	f.engine.failWith("state::list", &iii.Error{Code: "LIST_ERROR", Message: "disk on fire"})
	want := "# Skills\n\n_Error reading skills index: state::list: LIST_ERROR: disk on fire_\n"
	if diff := cmp.Diff(want, f.reg.index(f.ctx)); diff != "" {
		t.Errorf("index mismatch (-want +got):\n%s", diff)
	}
}

func TestIndexSkipsUndecodableRows(t *testing.T) {
	f := newFixture(t, nil)
	f.engine.put("skills", "bad", `{"id":"bad","skill":42,"registered_at":"x"}`)
	f.engine.put("skills", "worse", `"just a string"`)
	f.engine.put("skills", "partial", `{"id":"partial","skill":"# P"}`)
	f.mustRegisterSkill(t, "good", "# Good\n\nFine.")
	want := wantIntro + "- [`good`](iii://good) — Good — Fine.\n"
	if diff := cmp.Diff(want, f.reg.index(f.ctx)); diff != "" {
		t.Errorf("index mismatch (-want +got):\n%s", diff)
	}
}

// tenThousand builds 10,000 sorted index entries with realistic bodies.
func tenThousand() []indexEntry {
	entries := make([]indexEntry, 10000)
	for i := range entries {
		id := fmt.Sprintf("worker-%04d", i/10)
		if i%10 != 0 {
			id += fmt.Sprintf("/section-%d", i%10)
		}
		entries[i] = indexEntry{id: id, body: "# " + id + "\n\n" +
			"This skill explains when and why to call the functions of " + id + ", which tools to prefer, " +
			"and what the results mean for the next step of the plan.\n\n## Details\n\n" + strings.Repeat("More text. ", 60)}
	}
	return entries
}

// TestRenderIndexAllocations pins the cost model that keeps a 10,000-skill
// index in single-digit milliseconds (see BenchmarkRenderIndex10k): no
// allocation per skill, only the bullet table and the output text.
func TestRenderIndexAllocations(t *testing.T) {
	entries := tenThousand()
	allocs := testing.AllocsPerRun(5, func() { renderIndex(entries, entries[:100]) })
	if allocs > 2 {
		t.Errorf("rendering 10,100 skills made %v allocations, want at most 2", allocs)
	}
}

func BenchmarkRenderIndex10k(b *testing.B) {
	entries := tenThousand()
	b.ReportAllocs()
	for b.Loop() {
		renderIndex(entries, nil)
	}
}

// BenchmarkIndexFromState10k includes decoding 10,000 state rows.
func BenchmarkIndexFromState10k(b *testing.B) {
	eng := newFakeEngine()
	for _, e := range tenThousand() {
		eng.put("skills", e.id, fmt.Sprintf(`{"id":%q,"skill":%q,"registered_at":"2026-05-04T19:22:41.123456789+00:00"}`, e.id, e.body))
	}
	reg := New(Config{Caller: eng})
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		if s := reg.index(ctx); !strings.HasPrefix(s, wantIntro+"- ") {
			b.Fatal(errors.New("index not rendered"))
		}
	}
}
