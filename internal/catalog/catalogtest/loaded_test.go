package catalogtest_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/catalog/catalogtest"
)

// loadsWhileLooked is a scope whose load ends just after the waiter first
// reads its validity (false), before the waiter does anything else: the
// interleaving that left a rig waiting out its deadline on a loaded scope
// when it took the change channel after reading validity.
type loadsWhileLooked struct {
	*catalog.Scope
	once sync.Once
}

func (s *loadsWhileLooked) Valid() bool {
	valid := s.Scope.Valid()
	s.once.Do(func() {
		s.BeginLoad()
		s.EndLoad(nil)
	})
	return valid
}

// A load that ends between the waiter's look at the scope and its wait
// still wakes it, and a scope loaded already returns at once.
func TestWaitLoadedSeesALoadThatEndsWhileItLooks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s := &loadsWhileLooked{Scope: catalog.NewSkillsScope("skills", 1<<20)}
		if err := catalogtest.WaitLoaded(ctx, s); err != nil {
			t.Fatalf("WaitLoaded on a scope loaded while it looked: %v, want nil (valid = %v)", err, s.Scope.Valid())
		}
		if err := catalogtest.WaitLoaded(ctx, s); err != nil {
			t.Fatalf("WaitLoaded on a loaded scope: %v, want nil", err)
		}
	})
}

// A scope that never loads leaves the waiter to its deadline, with ctx's
// error.
func TestWaitLoadedEndsWithItsContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		start := time.Now()
		err := catalogtest.WaitLoaded(ctx, catalog.NewSkillsScope("skills", 1<<20))
		if err != context.DeadlineExceeded || time.Since(start) != 10*time.Second {
			t.Fatalf("WaitLoaded on a scope never loaded: %v after %v, want %v after 10s", err, time.Since(start), context.DeadlineExceeded)
		}
	})
}
