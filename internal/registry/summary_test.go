package registry

import (
	"strings"
	"testing"
)

// TestSummaryCacheFollowsState checks that cached summaries never go
// stale: a re-registered body, a removed row and a corrupt row are all
// reflected on the next listing.
func TestSummaryCacheFollowsState(t *testing.T) {
	f := newFixture(t, nil)
	f.mustRegisterSkill(t, "a", "# First\n\nOne.")
	f.mustRegisterSkill(t, "b", "# Bee\n\nTwo.")
	f.engine.put("skills", "corrupt", `{"id":"corrupt","skill":"# Corrupt"}`)
	if got := f.reg.index(f.ctx); !strings.Contains(got, "— First — One.") || !strings.Contains(got, "— Bee — Two.") || strings.Contains(got, "corrupt") {
		t.Fatalf("first index:\n%s", got)
	}
	f.mustRegisterSkill(t, "a", "# Second\n\nChanged.")
	if _, err := f.reg.unregisterSkill(f.ctx, unregisterSkillInput{ID: "b"}); err != nil {
		t.Fatal(err)
	}
	got := f.reg.index(f.ctx)
	if !strings.Contains(got, "— Second — Changed.") || strings.Contains(got, "First") || strings.Contains(got, "Bee") {
		t.Fatalf("index after changes still shows old summaries:\n%s", got)
	}
	if n := f.reg.view.ReadThroughRows(); n != 1 {
		t.Errorf("cache holds %d entries after a listing of 1 row, want 1", n)
	}
}
