//go:build unix

package toolset

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/fsource"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/tools"
)

// registrations records what a Set registers and unregisters, at
// fake-clock offsets from its start.
type registrations struct {
	start time.Time
	mu    sync.Mutex
	log   []string
}

func (r *registrations) RegisterFunction(f iii.Function) { r.add("+" + f.ID) }
func (r *registrations) UnregisterFunction(id string)    { r.add("-" + id) }

func (r *registrations) add(what string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log = append(r.log, fmt.Sprintf("%v %s", time.Since(r.start), what))
}

// settled waits until every goroutine of the bubble is blocked, then
// returns what was registered so far.
func (r *registrations) settled() []string {
	synctest.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.log...)
}

// The Set re-reads tools.lock at each tick of its poll (DefaultLockPoll):
// an approval, or a revocation, takes effect at the first tick after it
// and not before, and a lock left alone costs no registration. It runs on
// a fake clock (testing/synctest); nothing here waits on the kernel.
func TestLockIsReadAgainAtTheNextPoll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "skills", "echo", "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(echoSkill), 0o644); err != nil {
			t.Fatal(err)
		}
		lockPath := filepath.Join(dir, "tools.lock")
		src := fsource.New(dir, nil, nil, fsource.Roots("skills"))
		reg := &registrations{start: time.Now()}
		set := New(Options{Registrar: reg, LockPath: lockPath, ReadFile: src.ReadFile})
		set.Start()
		t.Cleanup(set.Close)
		skills, _ := src.Skills()
		set.Sync(skills)
		if e := set.Entries(); len(e) != 1 || e[0].Status != tools.StatusPending {
			t.Fatalf("entries = %+v, want echo pending", e)
		}
		tick := DefaultLockPoll
		// step sleeps to offset at, makes sure nothing was registered
		// before it, and returns what was registered at it.
		step := func(at time.Duration, before []string) []string {
			t.Helper()
			time.Sleep(at - time.Since(reg.start) - time.Nanosecond)
			if got := reg.settled(); !cmp.Equal(before, got) {
				t.Fatalf("registrations before %v: %q, want %q", at, got, before)
			}
			time.Sleep(time.Nanosecond)
			return reg.settled()
		}

		time.Sleep(tick / 5)
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		approved := tools.Lock{Approved: map[string]tools.Approval{path: {Skill: "echo", SHA256: tools.Sum(raw)}}}
		if err := approved.Write(lockPath); err != nil {
			t.Fatal(err)
		}
		served := []string{fmt.Sprintf("%v +echo::say", tick)}
		if diff := cmp.Diff(served, step(tick, nil)); diff != "" {
			t.Fatalf("after an approval (-want +got):\n%s", diff)
		}

		// Ticks that find the lock unchanged register nothing again.
		time.Sleep(10*tick + tick/5)
		if err := (tools.Lock{Approved: map[string]tools.Approval{}}).Write(lockPath); err != nil {
			t.Fatal(err)
		}
		revoked := append(served, fmt.Sprintf("%v -echo::say", 12*tick))
		if diff := cmp.Diff(revoked, step(12*tick, served)); diff != "" {
			t.Fatalf("after a revocation (-want +got):\n%s", diff)
		}
	})
}
