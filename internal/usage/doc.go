// Package usage counts how agents use each skill, by stage: listed in
// an index or list answer, returned by skill::search (and at which
// rank), read, fetched, and the iii://fn sections served, with first and
// last use (docs/decisions.md D84). Counting is in memory and costs a
// read a map lookup and a few atomic adds; one owned goroutine (Flusher)
// writes the replica's totals to the engine's state under the replica's
// own key, and skills::usage (Reporter) merges every replica's record.
// Only ids and counts are kept, never what a caller sent.
package usage
