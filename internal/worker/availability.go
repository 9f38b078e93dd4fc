package worker

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/offered"
)

// availability keeps the engine's function list that the view judges
// skills against (docs/decisions.md D85), and announces each skill that
// became available or unavailable on skills::on-change. It lists the
// functions once the client is ready and again at every change the
// engine reports (engine::workers-available fires when a worker connects,
// announces its metadata, before or after its functions depending on the
// SDK, and disconnects, after the engine removed its functions;
// engine::functions-available, the engine's poll every 5 s, is the net
// under both), and a few times in the second after each (followUps). A
// list that fails is tried again after listRetry.
type availability struct {
	client   *iii.Client
	fns      *offered.Functions
	view     *catalog.View
	announce func(ctx context.Context, id string, missing *contract.Missing)
	log      *zap.Logger
	wake     chan struct{}
	// settled is closed once the catalog serves its scopes as it will:
	// before, a change is judged but not announced, as the load itself
	// announces nothing, and no listing is read beside the load.
	settled <-chan struct{}
}

// listRetry is how long after a failed list the functions are listed again.
const listRetry = time.Second

// followUps are the looks after each change the engine reports, counted
// from the one before: a worker's registrations may reach the engine
// after the event of its connection or of its metadata call (the Node SDK
// and this module's client send that call first, and the engine runs it
// beside the frames that follow), so a look at the event alone could miss
// them. The last is a second after the event.
var followUps = []time.Duration{100 * time.Millisecond, 300 * time.Millisecond, 600 * time.Millisecond}

func newAvailability(client *iii.Client, fns *offered.Functions, view *catalog.View, settled <-chan struct{},
	announce func(context.Context, string, *contract.Missing), log *zap.Logger) *availability {
	a := &availability{client: client, fns: fns, view: view, announce: announce, log: log, wake: make(chan struct{}, 1), settled: settled}
	client.OnEngineChange(a.poke)
	return a
}

// poke asks for a look; it never blocks (the client calls it on delivery).
func (a *availability) poke() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// run looks at the engine's functions until ctx ends. Run it on a
// goroutine the worker owns.
func (a *availability) run(ctx context.Context) {
	if a.client.WaitReady(ctx) != nil {
		return
	}
	a.poke()
	again := time.NewTimer(time.Hour)
	again.Stop()
	defer again.Stop()
	next := len(followUps) // the follow-up look due next; none
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.wake:
			next = 0
		case <-again.C:
		}
		err := a.look(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			a.log.Debug("could not list the engine's functions; trying again", zap.Duration("in", listRetry), zap.Error(err))
			again.Reset(listRetry)
		case next < len(followUps):
			again.Reset(followUps[next])
			next++
		}
	}
}

// look lists the functions and, when the list changed, announces every
// skill whose judgement the change turned.
func (a *availability) look(ctx context.Context) error {
	have, err := a.client.Functions(ctx)
	if err != nil && !iii.CannotList(err) {
		return err
	}
	if err != nil {
		a.fns.Unknown() // an engine with no list: nothing is judged
		return nil
	}
	select {
	case <-a.settled:
	default:
		a.fns.Set(have)
		return nil
	}
	if !a.fns.Snapshot().Known {
		// The first list judges what no list judged before: a skill
		// served from the start as it is now did not change, so nothing
		// is announced (a worker's start announces nothing either).
		a.fns.Set(have)
		return nil
	}
	before, errBefore := a.view.Skills(ctx)
	if !a.fns.Set(have) || errBefore != nil {
		return nil
	}
	after, err := a.view.Skills(ctx)
	if err != nil {
		return nil // the stored rows cannot be listed; nothing to compare
	}
	for _, t := range turned(before, after) {
		a.announce(ctx, t.id, t.missing)
	}
	return nil
}

// turn is one skill whose judgement changed: missing is nil when it
// became available, else all it lacks now (also when it lacked something
// else before, so a marked listing's subscribers re-read it).
type turn struct {
	id      string
	missing *contract.Missing
}

// turned compares two listings' judgements of the skills both hold
// (served or hidden); a skill that came or went is announced by its
// registration or its file's change, not here.
func turned(before, after catalog.Listing) []turn {
	var out []turn
	for _, list := range [][]catalog.Skill{after.Skills, after.Hidden} {
		for _, s := range list {
			if s.Requires == nil {
				continue // requires nothing: never judged unavailable
			}
			old, ok := judged(before, s.ID)
			if ok && !old.Equal(s.Unavailable) {
				out = append(out, turn{id: s.ID, missing: s.Unavailable})
			}
		}
	}
	return out
}

// judged is l's judgement of id, served or hidden; ok is false when l
// holds no such skill. Both lists are sorted by id.
func judged(l catalog.Listing, id string) (missing *contract.Missing, ok bool) {
	if s, ok := l.Skill(id); ok {
		return s.Unavailable, true
	}
	if s, ok := l.HiddenSkill(id); ok {
		return s.Unavailable, true
	}
	return nil, false
}
