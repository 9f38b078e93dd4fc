package diagnostics

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/catalog/catalogtest"
	"github.com/iii-hq/skills-go/internal/config"
)

// longID is a valid skill id of about 1000 bytes, unique to i.
func longID(i int) string {
	return fmt.Sprintf("%ss%06d", strings.Repeat("deep/", 198), i)
}

// Register, read, unregister, many times over: the read counts go with
// the ids, so the counter ends as it began (issue 27: 40,000 cycles left
// ~140 MB resident). An id removed by someone else (another worker's
// unregister) goes at the next listing.
func TestReadChurnLeavesNoCounts(t *testing.T) {
	state := catalogtest.NewState()
	view := catalog.NewView(catalog.ViewConfig{Caller: state, SkillsScope: "skills", PromptsScope: "prompts", Timeout: time.Second})
	ctx := t.Context()
	if err := view.PutSkill(ctx, catalog.SkillRow{ID: "kept", Skill: "# Kept\n"}); err != nil {
		t.Fatal(err)
	}
	view.NoteRead("kept")
	baseline := view.ReadsLen()
	for i := range 2000 {
		id := longID(i)
		if err := view.PutSkill(ctx, catalog.SkillRow{ID: id, Skill: "# Churn\n"}); err != nil {
			t.Fatal(err)
		}
		view.NoteRead(id)
		if _, err := view.DeleteSkill(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if got := view.ReadsLen(); got != baseline {
		t.Errorf("after 2000 register/read/unregister cycles, %d ids have a read count; want %d", got, baseline)
	}

	// Removed behind the view's back.
	if err := view.PutSkill(ctx, catalog.SkillRow{ID: "gone", Skill: "# Gone\n"}); err != nil {
		t.Fatal(err)
	}
	view.NoteRead("gone")
	if _, err := state.Call(ctx, "state::delete", map[string]string{"scope": "skills", "key": "gone"}); err != nil {
		t.Fatal(err)
	}
	rep := New(Config{View: view}).Diagnose(ctx)
	if view.ReadsLen() != baseline || len(rep.Reads) != 1 || rep.Reads["kept"] != 1 {
		t.Errorf("after another worker's unregister: %d counts, %d reported; want only kept's", view.ReadsLen(), len(rep.Reads))
	}
}

// However many skills are read, skills::diagnostics reports the
// ReportedReads most read and counts the others, so its answer stays far
// within the response budget (issue 27: it failed for good once the
// counter passed 16 MiB).
func TestDiagnosticsReportsTheMostReadSkills(t *testing.T) {
	state := catalogtest.NewState()
	view := catalog.NewView(catalog.ViewConfig{Caller: state, SkillsScope: "skills", PromptsScope: "prompts", Timeout: time.Second})
	const served = 5000
	for i := range served {
		id := longID(i)
		row, _ := json.Marshal(catalog.SkillRow{ID: id, Skill: "# S\n"})
		state.Put("skills", id, string(row))
		view.NoteRead(id)
		if i%2 == 0 {
			view.NoteRead(id)
		}
	}
	rep := New(Config{View: view}).Diagnose(t.Context())
	raw, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Reads) != ReportedReads || rep.ReadsOmitted != served-ReportedReads || len(raw) > config.DefaultMaxResponseBytes/8 {
		t.Fatalf("reported %d reads, %d omitted, in %d bytes; want %d, %d, within %d bytes",
			len(rep.Reads), rep.ReadsOmitted, len(raw), ReportedReads, served-ReportedReads, config.DefaultMaxResponseBytes/8)
	}
	for id, n := range rep.Reads {
		if n != 2 {
			t.Fatalf("reported %.40s… with %d reads; the most read (2 each) come first", id, n)
		}
	}
	if _, ok := rep.Reads[longID(0)]; !ok {
		t.Errorf("ties are broken by id: %.40s…000000 is not reported", longID(0))
	}
}
