package engine

import (
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// state::list_entries, the paged listing of iii 0.24's state worker
// (Options.StateListEntries; docs/decisions.md D55). The first page takes
// an immutable snapshot of the scope's rows, [key, value] in first-write
// order; each page answers the rows that fit in limit and max_bytes, and
// a single-use cursor for the next page, bound to the scope, the caller
// and the limits. Snapshots are owned by the store (entrySnapshots): each
// holds at most snapshotMaxRows rows and snapshotMaxBytes bytes, lives
// snapshotTTL after its last page, and at most maxOpenSnapshots (together
// at most maxOpenSnapshotBytes) are open at once, the least recently used
// dropped first. The limits and ranges are the 0.24 worker's; the error
// codes and messages, and the TTL and open-snapshot bounds, are this
// engine's own (the real ones are not known exactly).

// The accepted inputs.
const (
	listEntriesDefaultLimit = 100
	listEntriesMaxLimit     = 1000
	listEntriesDefaultBytes = 1_000_000
	listEntriesMinBytes     = 256
	listEntriesMaxBytes     = 8_000_000
	listEntriesCursorMaxLen = 36
)

// The snapshots' bounds.
const (
	snapshotMaxRows      = 100_000
	snapshotMaxBytes     = 32 << 20 // the rows as a page carries them, ["key",value]
	snapshotTTL          = 60 * time.Second
	maxOpenSnapshots     = 64
	maxOpenSnapshotBytes = 256 << 20
)

// Error codes of state::list_entries (this engine's choice).
const (
	codeInvalidArgument  = "invalid_argument"
	codeInvalidCursor    = "invalid_cursor"
	codeSnapshotTooLarge = "snapshot_too_large"
	codeRowTooLarge      = "row_too_large"
)

var stateListEntriesInput = &inputStruct{name: "StateListEntriesInput", fields: []field{
	{name: "scope"}, optString("cursor"),
	{name: "limit", kind: kindAny, optional: true},
	{name: "max_bytes", kind: kindAny, optional: true},
	optString("_caller_worker_id"),
}}

// stateListEntriesSpec declares the function; it is installed only with
// Options.StateListEntries (state_worker.go).
var stateListEntriesSpec = builtinSpec{stateWorkerName, "state::list_entries",
	"List a scope's [key, value] entries in pages of an immutable snapshot", stateListEntries}

// entrySnapshot is one scope's rows as the first page saw them, and how
// far the pages have read. Its values are the store's own slices, which
// are never changed in place (stateRow), so the snapshot holds no copy.
type entrySnapshot struct {
	scope, caller     string
	limit, maxBytes   int
	keys              []json.RawMessage // each key as a JSON string
	values            []json.RawMessage
	bytes             int64 // sum of entrySize over the rows
	next              int   // rows answered so far
	lastUsed          time.Time
	cursor            string // the cursor that continues it, while open
	envelopeAllowance int    // the largest page envelope, for row checks
}

// entrySnapshots are the open snapshots, by cursor.
type entrySnapshots struct {
	now func() time.Time

	mu    sync.Mutex
	open  map[string]*entrySnapshot
	bytes int64 // sum over open
}

func newEntrySnapshots() *entrySnapshots {
	return &entrySnapshots{now: time.Now, open: map[string]*entrySnapshot{}}
}

// stateListEntries answers one page of a scope's entries, from the store
// of the namespace it runs in; each store keeps its own snapshots.
func stateListEntries(s *Engine, ns string, data json.RawMessage) (json.RawMessage, *wire.ErrorBody) {
	a, e := stateListEntriesInput.decode("state::list_entries", data)
	if e != nil {
		return nil, e
	}
	limit, e := listEntriesRange(a, "limit", listEntriesDefaultLimit, 1, listEntriesMaxLimit)
	if e != nil {
		return nil, e
	}
	maxBytes, e := listEntriesRange(a, "max_bytes", listEntriesDefaultBytes, listEntriesMinBytes, listEntriesMaxBytes)
	if e != nil {
		return nil, e
	}
	req := entryRequest{scope: a.str("scope"), caller: a.str("_caller_worker_id"), limit: limit, maxBytes: maxBytes}
	st := s.stateStoreIn(ns)
	snaps := st.entries
	var snap *entrySnapshot
	if cursor, ok := a.optStr("cursor"); ok {
		snap, e = snaps.take(cursor, req)
	} else {
		snap, e = st.entrySnapshot(req)
	}
	if e != nil {
		return nil, e
	}
	return snaps.page(snap), nil
}

// entryRequest is what a cursor is bound to.
type entryRequest struct {
	scope, caller   string
	limit, maxBytes int
}

// listEntriesRange reads an optional integer input, or its default, and
// refuses anything but an integer in [lo, hi], naming the value and the
// range.
func listEntriesRange(a args, name string, def, lo, hi int) (int, *wire.ErrorBody) {
	v, ok := a[name]
	if !ok {
		return def, nil
	}
	if n, isNum := v.(json.Number); isNum {
		if i, err := strconv.ParseInt(n.String(), 10, 64); err == nil && i >= int64(lo) && i <= int64(hi) {
			return int(i), nil
		}
	}
	return 0, &wire.ErrorBody{Code: codeInvalidArgument, Message: fmt.Sprintf(
		"state::list_entries: %s %s is out of range; it must be an integer between %d and %d (default %d)",
		name, clipValue(mustEncode(v)), lo, hi, def)}
}

// clipValue shows at most 64 bytes of a JSON value in a message.
func clipValue(raw json.RawMessage) string {
	if len(raw) <= 64 {
		return string(raw)
	}
	cut := 61
	for cut > 0 && !utf8.RuneStart(raw[cut]) {
		cut--
	}
	return string(raw[:cut]) + "..."
}

// entrySnapshot takes an immutable snapshot of req.scope for a first
// page, refusing one over the snapshot bounds or holding a row that no
// page of req.maxBytes can carry (a row is never skipped).
func (st *stateStore) entrySnapshot(req entryRequest) (*entrySnapshot, *wire.ErrorBody) {
	snap := &entrySnapshot{scope: req.scope, caller: req.caller, limit: req.limit, maxBytes: req.maxBytes}
	keys, values, err := st.rowsOf(req.scope, snapshotMaxRows)
	if err != nil {
		return nil, stateStoreError("state::list_entries", err)
	}
	if len(keys) > snapshotMaxRows {
		return nil, &wire.ErrorBody{Code: codeSnapshotTooLarge, Message: fmt.Sprintf(
			"state::list_entries: scope %s has %d rows; a snapshot holds at most %d rows and %d bytes (read the scope with state::list)",
			strconv.Quote(req.scope), len(keys), snapshotMaxRows, snapshotMaxBytes)}
	}
	snap.values = values
	snap.keys = make([]json.RawMessage, len(keys))
	for i, k := range keys {
		snap.keys[i] = mustEncode(k)
	}
	total := len(snap.values)
	snap.envelopeAllowance = envelopeLen(total, total)
	largest, largestAt := 0, -1
	for i := range snap.values {
		n := snap.entrySize(i)
		snap.bytes += int64(n)
		if n > largest {
			largest, largestAt = n, i
		}
	}
	if snap.bytes > snapshotMaxBytes {
		return nil, &wire.ErrorBody{Code: codeSnapshotTooLarge, Message: fmt.Sprintf(
			"state::list_entries: scope %s has %d rows in %d bytes; a snapshot holds at most %d rows and %d bytes (read the scope with state::list)",
			strconv.Quote(req.scope), total, snap.bytes, snapshotMaxRows, snapshotMaxBytes)}
	}
	if largestAt >= 0 && snap.envelopeAllowance+largest > req.maxBytes {
		return nil, &wire.ErrorBody{Code: codeRowTooLarge, Message: fmt.Sprintf(
			"state::list_entries: the row at key %s of scope %s takes %d bytes in a page, and a page of max_bytes %d has room for %d; raise max_bytes (at most %d) or read the key with state::get",
			clipValue(snap.keys[largestAt]), strconv.Quote(req.scope), largest, req.maxBytes, req.maxBytes-snap.envelopeAllowance, listEntriesMaxBytes)}
	}
	return snap, nil
}

// rowsOf returns a scope's keys and values, in first-write order in
// memory and in the hash's order in Redis. A scope of more than limit
// rows in memory gives one blank key per row and no values, enough to
// refuse it without copying it.
func (st *stateStore) rowsOf(scope string, limit int) ([]string, []json.RawMessage, error) {
	if st.remote != nil {
		return st.remote.rows(scope)
	}
	st.mu.RLock()
	defer st.mu.RUnlock()
	rows := st.scopes[scope]
	if rows == nil {
		return nil, nil, nil
	}
	if rows.order.Len() > limit {
		return make([]string, rows.order.Len()), nil, nil
	}
	keys := make([]string, 0, rows.order.Len())
	values := make([]json.RawMessage, 0, rows.order.Len())
	for el := rows.order.Front(); el != nil; el = el.Next() {
		row := el.Value.(*stateRow)
		keys = append(keys, row.key)
		values = append(values, row.value)
	}
	return keys, values, nil
}

// entrySize is the length of row i in a page: ["key",value].
func (snap *entrySnapshot) entrySize(i int) int {
	return len(snap.keys[i]) + len(snap.values[i]) + 3
}

// envelopeLen bounds the length of a page without its entries:
// {"done":false,"entries":[],"next_cursor":"<cursor>","offset":N,"total":M}.
func envelopeLen(offset, total int) int {
	return len(`{"done":false,"entries":[],"next_cursor":"","offset":,"total":}`) +
		listEntriesCursorMaxLen + len(strconv.Itoa(offset)) + len(strconv.Itoa(total))
}

// take removes the snapshot that cursor continues, for the caller to read
// its next page; a cursor is good for one page. A request that does not
// repeat the snapshot's scope, caller and limits is refused and leaves the
// cursor as it was.
func (ss *entrySnapshots) take(cursor string, req entryRequest) (*entrySnapshot, *wire.ErrorBody) {
	if len(cursor) > listEntriesCursorMaxLen {
		return nil, &wire.ErrorBody{Code: codeInvalidArgument, Message: fmt.Sprintf(
			"state::list_entries: cursor is %d characters long; a cursor is at most %d (pass next_cursor back as it was given)",
			len(cursor), listEntriesCursorMaxLen)}
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.sweepLocked()
	snap := ss.open[cursor]
	if snap == nil {
		return nil, &wire.ErrorBody{Code: codeInvalidCursor, Message: fmt.Sprintf(
			"state::list_entries: cursor %s is not valid: it is unknown, was already used (each cursor reads one page), or its snapshot expired (%s after its last page); list again without a cursor",
			strconv.Quote(cursor), snapshotTTL)}
	}
	switch {
	case snap.caller != req.caller:
		return nil, &wire.ErrorBody{Code: codeInvalidCursor, Message: fmt.Sprintf(
			"state::list_entries: cursor %s was issued to another caller; only the worker that listed the first page can continue it",
			strconv.Quote(cursor))}
	case snap.scope != req.scope || snap.limit != req.limit || snap.maxBytes != req.maxBytes:
		return nil, &wire.ErrorBody{Code: codeInvalidCursor, Message: fmt.Sprintf(
			"state::list_entries: cursor %s was issued for scope %s with limit %d and max_bytes %d, not scope %s with limit %d and max_bytes %d; repeat the first page's scope and limits on every page",
			strconv.Quote(cursor), strconv.Quote(snap.scope), snap.limit, snap.maxBytes, strconv.Quote(req.scope), req.limit, req.maxBytes)}
	}
	ss.removeLocked(snap)
	return snap, nil
}

// page answers snap's next page and, unless it is the last, keeps snap
// open under a new cursor. The caller holds snap alone (take, or a new
// snapshot), so the page is built outside the lock.
func (ss *entrySnapshots) page(snap *entrySnapshot) json.RawMessage {
	total := len(snap.values)
	offset := snap.next
	budget := snap.maxBytes - snap.envelopeAllowance
	end := offset
	used := 0
	for end < total && end-offset < snap.limit {
		n := snap.entrySize(end)
		if end > offset {
			n++ // the comma
		}
		if used+n > budget {
			break
		}
		used += n
		end++
	}
	snap.next = end
	done := end == total
	cursor := ""
	if !done {
		cursor = uuid.NewString()
		ss.keep(snap, cursor)
	}
	out := make([]byte, 0, used+snap.envelopeAllowance)
	out = append(out, `{"done":`...)
	out = strconv.AppendBool(out, done)
	out = append(out, `,"entries":[`...)
	for i := offset; i < end; i++ {
		if i > offset {
			out = append(out, ',')
		}
		out = append(out, '[')
		out = append(out, snap.keys[i]...)
		out = append(out, ',')
		out = append(out, snap.values[i]...)
		out = append(out, ']')
	}
	out = append(out, `],"next_cursor":`...)
	if done {
		out = append(out, "null"...)
	} else {
		out = strconv.AppendQuote(out, cursor)
	}
	out = append(out, `,"offset":`...)
	out = strconv.AppendInt(out, int64(offset), 10)
	out = append(out, `,"total":`...)
	out = strconv.AppendInt(out, int64(total), 10)
	return append(out, '}')
}

// keep opens snap under cursor, dropping expired snapshots and then the
// least recently used ones while the open ones are over their bounds.
func (ss *entrySnapshots) keep(snap *entrySnapshot, cursor string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.sweepLocked()
	for len(ss.open) > 0 && (len(ss.open) >= maxOpenSnapshots || ss.bytes+snap.bytes > maxOpenSnapshotBytes) {
		var oldest *entrySnapshot
		for _, o := range ss.open {
			if oldest == nil || o.lastUsed.Before(oldest.lastUsed) {
				oldest = o
			}
		}
		ss.removeLocked(oldest)
	}
	snap.cursor, snap.lastUsed = cursor, ss.now()
	ss.open[cursor] = snap
	ss.bytes += snap.bytes
}

// sweepLocked drops the snapshots unused for snapshotTTL.
func (ss *entrySnapshots) sweepLocked() {
	now := ss.now()
	for _, snap := range ss.open {
		if now.Sub(snap.lastUsed) >= snapshotTTL {
			ss.removeLocked(snap)
		}
	}
}

func (ss *entrySnapshots) removeLocked(snap *entrySnapshot) {
	delete(ss.open, snap.cursor)
	ss.bytes -= snap.bytes
	snap.cursor = ""
}

// openCount is the number of open snapshots and their bytes, for tests.
func (ss *entrySnapshots) openCount() (int, int64) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return len(ss.open), ss.bytes
}
