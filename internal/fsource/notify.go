package fsource

import "time"

// notifier is the kernel's change notification as a Watch uses it: a set
// of watched directories, a wake-up after events, errors (an overflow
// among them) and a count of the events read so far. Seen is the
// freshness check of a listing (docs/decisions.md D68): a listing whose
// count is the one the last rescan started from has nothing to catch up.
type notifier interface {
	Add(dir string) error
	Remove(dir string) error
	WatchList() []string
	// Wake receives a value after events were read (at most one waits).
	Wake() <-chan struct{}
	// Errors receives watch errors (an overflow, a failed read).
	Errors() <-chan error
	// Seen reads whatever events are pending and returns the count of
	// events read since the notifier started. Where the notifier owns the
	// kernel's queue (Linux) a change made before the call is counted by
	// it; elsewhere it counts the events delivered so far.
	Seen() uint64
	// Exact reports whether Seen counts every change that returned
	// before the call (Linux); if not, listings also stat directories.
	Exact() bool
	// Writing reports whether some watched file was written and not yet
	// closed by its writer (Linux); the watch's own loop holds a rescan
	// while it is, so it never announces a file half written
	// (docs/decisions.md D68). Elsewhere it is always false.
	Writing() bool
	// Files reads whatever events are pending and returns what the queue
	// said lately of each file it named, by path, and the count at which
	// some file's events were last lost (D81). Elsewhere than Linux it is
	// nil and 0.
	Files() (map[string]FileEvents, uint64)
	// Forget drops what is kept of files whose last event is counted at
	// or before upTo and that no writer holds open.
	Forget(upTo uint64)
	Close() error
}

// FileEvents is what the kernel's queue said of one file lately: the
// counts (of Seen) at its last event of any kind and at its last write
// (IN_MODIFY), and when the first write since its writer last closed it
// was read (zero when no writer holds it: closed, removed or moved away).
type FileEvents struct {
	Last, Modify uint64
	Began        time.Time
}
