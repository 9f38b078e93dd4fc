package catalog

import "context"

// The change feed: a surface that keeps something derived from the view
// (today the search index, Searcher.Follow) follows it instead of asking
// on every request; skills mcp's list_changed follows the on-change
// triggers over the engine instead, since it may serve another process. The view starts no goroutine for it; the follower
// owns the one that waits.

// Version identifies the content of the view: the catalog's versions of
// the stored skills and prompts, the version of the file scan, and that
// of the engine's function list, which decides which skills are
// available (D85). Two
// equal Versions saw the same content, as far as the view can tell
// without reading: a scope read through (no state trigger) changes
// without a new Version, and without a watch the files change only when
// a listing scans them.
type Version struct {
	skills, prompts, files, functions uint64
}

// Version is the view's Version now.
func (v *View) Version() Version {
	var ver Version
	if v.skills != nil {
		ver.skills = v.skills.Version()
	}
	if v.prompts != nil {
		ver.prompts = v.prompts.Version()
	}
	ver.functions = v.functions.Snapshot().Version
	if v.watch != nil {
		ver.files = v.watch.Snapshot().Version
	} else {
		v.mu.Lock()
		ver.files = v.scanned.Version
		v.mu.Unlock()
	}
	return ver
}

// Next waits until the view's Version differs from since and returns the
// new one, or returns since and ctx's error when ctx ends first.
func (v *View) Next(ctx context.Context, since Version) (Version, error) {
	for {
		// The channels are taken before the version is read: a change in
		// between closes a channel already held, so none is missed.
		skills, prompts, files := v.changes()
		functions := v.functions.Changed()
		if now := v.Version(); now != since {
			return now, nil
		}
		select {
		case <-skills:
		case <-prompts:
		case <-files:
		case <-functions:
		case <-ctx.Done():
			return since, ctx.Err()
		}
	}
}

// changes are the channels closed at the next change of each part of the
// view; nil (never ready) for a part the view does not have.
func (v *View) changes() (skills, prompts, files <-chan struct{}) {
	if v.skills != nil {
		skills = v.skills.Changed()
	}
	if v.prompts != nil {
		prompts = v.prompts.Changed()
	}
	if v.watch != nil {
		files = v.watch.Changed()
	} else {
		v.mu.Lock()
		files = v.scanChanged
		v.mu.Unlock()
	}
	return skills, prompts, files
}
