package worker

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/redistest"
	"github.com/iii-hq/skills-go/internal/usage"
)

// usageWithin bounds the wait for another replica's record: it writes
// every usage.FlushInterval.
const usageWithin = 3 * usage.FlushInterval

// counts is a usage row without its times, for comparing.
type counts struct{ Listed, Searched, Rank1, Read, Fetched, Served uint64 }

func countsOf(r usage.Row) counts {
	return counts{r.Listed, r.Searched, r.Rank1, r.Read, r.Fetched, r.Served}
}

// usageOf is skills::usage through r with query: the skills' and
// sections' counts.
func usageOf(ctx context.Context, t *testing.T, r *replica, query map[string]any) (skills, sections map[string]counts, rep usage.Report) {
	t.Helper()
	if err := json.Unmarshal(call(ctx, t, r, contract.FnSkillsUsage, query), &rep); err != nil {
		t.Fatal(err)
	}
	skills, sections = map[string]counts{}, map[string]counts{}
	for id, row := range rep.Skills {
		skills[id] = countsOf(row)
	}
	for fn, row := range rep.Sections {
		sections[fn] = countsOf(row)
	}
	return skills, sections, rep
}

// Two replicas, each on its own engine over one Redis (the store they
// share), serve an agent session each; skills::usage through either
// reports both sessions' counts, merged (docs/decisions.md D84). A read
// made just before a replica stops is in its record when Close returns:
// it flushes on shutdown.
func TestUsageMergesTwoReplicas(t *testing.T) {
	redis := redistest.NewServer(t, redistest.Options{})
	cfg := config.Resolve(config.Default(), config.ModeWorker)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a, _ := startReplica(ctx, t, "A", cfg, engine.Options{StateURL: redis.URL})
	b, wb := startReplica(ctx, t, "B", cfg, engine.Options{StateURL: redis.URL})
	a.caller.RegisterFunction(iii.Function{ID: "acme::status", Handler: func(context.Context, iii.Request) (any, error) {
		return "all green", nil
	}})
	for _, r := range []*replica{a, b} {
		if err := r.srv.WaitFunction(ctx, contract.FnSkillsUsage); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.srv.WaitFunction(ctx, "acme::status"); err != nil {
		t.Fatal(err)
	}
	call(ctx, t, a, contract.FnSkillsRegister, map[string]string{"id": "pg/backup", "skill": "# Postgres backups\n\nTake a base backup."})
	call(ctx, t, b, contract.FnSkillsRegister, map[string]string{"id": "pg/tuning", "skill": "# Postgres tuning\n\nRead EXPLAIN."})

	// A's session: a search, a read, a fetch with a section; B's: a read.
	call(ctx, t, a, contract.FnSkillSearch, map[string]any{"query": "base backup", "limit": 1})
	call(ctx, t, a, contract.FnSkillsResourcesRead, map[string]string{"uri": "iii://pg/backup"})
	call(ctx, t, a, contract.FnSkillFetch, map[string]any{"uris": []string{"iii://pg/backup", "iii://fn/acme/status"}})
	call(ctx, t, b, contract.FnSkillsResourcesRead, map[string]string{"uri": "iii://pg/tuning"})

	wantSkills := map[string]counts{
		"pg/backup": {Searched: 1, Rank1: 1, Read: 1, Fetched: 1},
		"pg/tuning": {Read: 1},
	}
	wantSections := map[string]counts{"acme::status": {Served: 1}}
	for _, r := range []*replica{a, b} {
		deadline := time.Now().Add(usageWithin)
		for {
			skills, sections, rep := usageOf(ctx, t, r, map[string]any{})
			if cmp.Equal(wantSkills, skills) && cmp.Equal(wantSections, sections) && rep.Replicas == 2 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("skills::usage through %s after %v: %v\nskills (-want +got):\n%s\nsections (-want +got):\n%s", r.name, usageWithin, rep,
					cmp.Diff(wantSkills, skills), cmp.Diff(wantSections, sections))
			}
			select {
			case <-ctx.Done():
				t.Fatal(ctx.Err())
			case <-time.After(50 * time.Millisecond): // the next poll; the deadline decides
			}
		}
	}

	// The same counts by the hour, from both replicas' hours (D87): every
	// use was made in the last day.
	since := time.Now().Add(-24 * time.Hour).UTC().Format(time.RFC3339)
	for _, r := range []*replica{a, b} {
		skills, sections, rep := usageOf(ctx, t, r, map[string]any{"since": since})
		if !cmp.Equal(wantSkills, skills) || !cmp.Equal(wantSections, sections) || rep.CountedSince == "" {
			t.Errorf("skills::usage since %s through %s: %v, counted since %q\nskills (-want +got):\n%s\nsections (-want +got):\n%s", since, r.name, rep, rep.CountedSince,
				cmp.Diff(wantSkills, skills), cmp.Diff(wantSections, sections))
		}
	}

	// A read on B, then B stops: its last count is written as it stops.
	call(ctx, t, b, contract.FnSkillsResourcesRead, map[string]string{"uri": "iii://pg/tuning"})
	if err := wb.Close(); err != nil {
		t.Fatal(err)
	}
	skills, _, rep := usageOf(ctx, t, a, map[string]any{})
	if got := skills["pg/tuning"].Read; got != 2 || rep.Replicas != 2 {
		t.Errorf("after B stopped, A reports pg/tuning read %d times from %d replicas; want 2 from 2", got, rep.Replicas)
	}
}
