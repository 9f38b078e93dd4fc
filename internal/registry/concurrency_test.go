package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestConcurrentHandlers runs every kind of handler at once (run with
// -race). A slow section must not hold up state reads: nothing is locked
// across engine calls.
func TestConcurrentHandlers(t *testing.T) {
	f := newFixture(t, nil)
	release := make(chan struct{})
	f.engine.handle("slow::section", func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		select {
		case <-release:
			return json.RawMessage(`"done"`), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	f.engine.returns("w::prompt", `"rendered"`)
	if _, err := f.reg.registerPrompt(f.ctx, registerPromptInput{Name: "p", Description: "d", FunctionID: "w::prompt"}); err != nil {
		t.Fatal(err)
	}

	slow := make(chan error, 1)
	go func() {
		_, err := f.reg.resourcesRead(f.ctx, readIn("iii://fn/slow/section"))
		slow <- err
	}()

	const workers = 8
	var wg sync.WaitGroup
	errs := make(chan error, workers*6)
	for w := range workers {
		wg.Go(func() {
			id := fmt.Sprintf("skill-%d", w)
			_, err := f.reg.registerSkill(f.ctx, registerSkillInput{ID: id, Skill: "# " + id})
			errs <- err
			_, err = f.reg.fetch(f.ctx, fetchSkillInput{URIs: []string{"iii://" + id, "iii://skills"}})
			errs <- err
			_, err = f.reg.listSkills(f.ctx, listSkillsInput{})
			errs <- err
			_, err = f.reg.getPrompt(f.ctx, promptGetInput{Name: "p"})
			errs <- err
			_, err = f.reg.mcpListPrompts(f.ctx, listInput{})
			errs <- err
			_, err = f.reg.unregisterSkill(f.ctx, unregisterSkillInput{ID: id})
			errs <- err
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("handlers blocked behind a slow section call")
	}
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	close(release)
	if err := <-slow; err != nil {
		t.Errorf("slow section: %v", err)
	}
	if got := len(f.skillEvents.fired()); got != 2*workers {
		t.Errorf("skill events = %d, want %d", got, 2*workers)
	}
}
