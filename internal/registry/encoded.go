package registry

import (
	"context"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/iii"
)

// The two largest answers, skills::list and the iii://skills read, are
// kept encoded per listing version (docs/decisions.md D19, D53): while
// the view's content is unchanged, a call costs the listing check and
// the stored bytes, not a walk over every skill and an encoding of a
// megabyte. The bytes are those iii.EncodeResult makes (and checks, once)
// of the typed answer, so the wire is as it was; TestViewMatchesARebuildFromScratch
// compares them with a fresh rendering after every change.

// answeringWith gives fn, whose handler answers with bytes kept encoded,
// the response schema of the type they encode.
func answeringWith[Out any](fn iii.Function) iii.Function {
	fn.ResponseFormat = iii.SchemaOf[Out]()
	return fn
}

// encodedList is the skills::list handler: listSkills's answer, encoded
// once per listing version.
func (r *Registry) encodedList(ctx context.Context, in listSkillsInput) (iii.Encoded, error) {
	if err := r.view.ReadAfter(ctx, in.After); err != nil {
		return nil, err
	}
	l, err := r.skillListing(ctx)
	if err != nil {
		return nil, err
	}
	cache := &r.listAnswer
	if in.Revision {
		cache = &r.listRevisionAnswer
	}
	answer, err := r.encodedOnce(cache, l, func(b Budgets) any { return r.listOf(l, b, in.Revision) })
	if err == nil {
		r.view.NoteListed(listedBySkillsList, l) // D84
	}
	return answer, err
}

// encodedRead is the skills::resources-read handler: the index's answer
// is kept encoded per listing version; any other read is resourcesRead's.
func (r *Registry) encodedRead(ctx context.Context, in readResourceInput) (any, error) {
	if in.URI != nil {
		if err := r.view.ReadAfter(ctx, in.After); err != nil {
			return nil, err
		}
	}
	if in.URI == nil || *in.URI != IndexURI {
		return r.resourcesRead(ctx, in)
	}
	l, err := r.skillListing(ctx)
	if err != nil {
		return indexEnvelope(r.indexOf(l, err)), nil // the error line, as read renders it
	}
	answer, err := r.encodedOnce(&r.indexAnswer, l, func(Budgets) any { return indexEnvelope(r.indexOf(l, nil)) })
	if err != nil {
		return nil, err
	}
	if err := iii.HoldBytes(ctx, len(answer)); err != nil {
		return nil, err
	}
	r.noteIndexed(l) // D84
	return answer, nil
}

// indexEnvelope is the resources-read answer for the index text.
func indexEnvelope(text string) readResourceOutput {
	return readResourceOutput{Contents: []resourceContent{{URI: IndexURI, MimeType: contract.MIMEMarkdown, Text: text}}}
}

// encodedOnce returns the answer for listing l from cache, or encodes
// render's and keeps it while l's version and the budgets hold.
func (r *Registry) encodedOnce(cache *versionCache[iii.Encoded], l catalog.Listing, render func(Budgets) any) (iii.Encoded, error) {
	budgets := r.Budgets()
	version, cacheable := l.Version()
	key := budgeted{version, budgets}
	if cacheable {
		if b, ok := cache.get(key); ok {
			return b, nil
		}
	}
	b, err := iii.EncodeResult(render(budgets))
	if err != nil {
		return nil, err
	}
	if cacheable {
		cache.put(key, b)
	}
	return b, nil
}
