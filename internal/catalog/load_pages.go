package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/iii/wire"
)

// A paged load (docs/data-path.md#the-catalog). iii 0.24's state worker
// offers state::list_entries: an immutable snapshot of a scope read in
// pages of [key, value] entries, each page bounded in rows (limit, at most
// 1000) and in bytes (max_bytes, the whole page as JSON, at most
// 8,000,000), continued with a single-use cursor; a snapshot holds at most
// 100,000 rows and 32 MB. A load reads the values of the pages, in order,
// into the same scopeLoad a state::list fills: the rows are built from
// the values alone, their keys read from the value (a skill's id, a
// prompt's name) exactly as from state::list's, so both listings build
// the same scope. The entries' keys are checked for shape only.

// The page size: as many rows as the engine gives (1000), within 4 MB. A
// page is held whole while its values are decoded, so a load holds at most
// 4 MB beside the scope it builds, 1/16 of the engine's usual 64 MiB
// frame; a snapshot (at most 32 MB) is at most 8 pages at full size. A row
// over the budget makes the engine refuse the listing, and the scope is
// listed with state::list instead, as before list_entries.
const (
	pageLimit = 1000
	pageBytes = 4_000_000
)

// errNoPages is an engine without state::list_entries.
var errNoPages = errors.New("the engine has no state::list_entries")

// pagesRefused is a paged listing that cannot give the whole scope: the
// engine refused it (its error code and message), or a page that does not
// follow the one before.
type pagesRefused struct{ err error }

func (e *pagesRefused) Error() string { return e.err.Error() }
func (e *pagesRefused) Unwrap() error { return e.err }

func refusedf(format string, args ...any) error {
	return &pagesRefused{fmt.Errorf(format, args...)}
}

// listPages calls each with every value of the scope's snapshot, in
// order, reading it in pages of state::list_entries. It returns
// errNoPages when the engine has no such function, a *pagesRefused when
// the listing cannot be finished (after some values may have been
// handed to each: the caller starts again), and any other error as the
// call returned it (the engine busy or gone).
func (c *Catalog) listPages(ctx context.Context, scope string, each func(json.RawMessage)) error {
	in := map[string]any{"scope": scope, "limit": c.pageLimit, "max_bytes": c.pageBytes}
	read, total := 0, -1
	for {
		res, err := c.call(ctx, "state::list_entries", in)
		if err != nil {
			var ie *iii.Error
			switch {
			case !errors.As(err, &ie):
				return err
			case ie.Code == iii.CodeFunctionNotFound:
				return errNoPages
			default:
				return &pagesRefused{fmt.Errorf("state::list_entries of scope %s: %w", ids.Quote(scope), err)}
			}
		}
		p, err := readPage(res)
		if err != nil {
			return refusedf("state::list_entries of scope %s: %w", ids.Quote(scope), err)
		}
		switch {
		case total >= 0 && p.total != total:
			return refusedf("state::list_entries of scope %s: a page says total %d after one said %d", ids.Quote(scope), p.total, total)
		case p.offset != read:
			return refusedf("state::list_entries of scope %s: a page at offset %d after %d rows", ids.Quote(scope), p.offset, read)
		case read+len(p.values) > p.total:
			return refusedf("state::list_entries of scope %s: %d rows of a total of %d", ids.Quote(scope), read+len(p.values), p.total)
		case p.done && read+len(p.values) != p.total:
			return refusedf("state::list_entries of scope %s: done after %d rows of %d", ids.Quote(scope), read+len(p.values), p.total)
		case !p.done && len(p.values) == 0:
			return refusedf("state::list_entries of scope %s: an empty page before the end", ids.Quote(scope))
		}
		total = p.total
		for _, v := range p.values {
			each(v)
		}
		read += len(p.values)
		if p.done {
			return nil
		}
		in["cursor"] = p.cursor
	}
}

// entriesPage is one page of state::list_entries.
type entriesPage struct {
	values        []json.RawMessage
	cursor        string // "" on the last page
	done          bool
	offset, total int
}

// readPage reads a page with the codec's scanner: its values are handed
// on undecoded. done and next_cursor must agree (null exactly when done).
func readPage(res json.RawMessage) (entriesPage, error) {
	m, err := wire.Members(res, "entries", "next_cursor", "done", "offset", "total")
	if err != nil {
		return entriesPage{}, fmt.Errorf("a page that is not an object: %w", err)
	}
	var p entriesPage
	switch string(m[2]) {
	case "true":
		p.done = true
	case "false":
	default:
		return entriesPage{}, errors.New("a page without a boolean done")
	}
	for i, dst := range []*int{&p.offset, &p.total} {
		n, err := strconv.Atoi(string(m[3+i]))
		if err != nil || n < 0 {
			return entriesPage{}, fmt.Errorf("a page whose %s is not a count", [...]string{"offset", "total"}[i])
		}
		*dst = n
	}
	if string(m[1]) != "null" {
		if p.cursor, err = wire.String(m[1]); err != nil || p.cursor == "" {
			return entriesPage{}, errors.New("a page whose next_cursor is neither null nor a cursor")
		}
	}
	if p.done != (p.cursor == "") {
		return entriesPage{}, fmt.Errorf("a page with done %v and next_cursor %s", p.done, m[1])
	}
	entries := wire.ArrayElements(m[0])
	if entries == nil {
		return entriesPage{}, errors.New("a page whose entries are not an array")
	}
	p.values = make([]json.RawMessage, len(entries))
	for i, e := range entries {
		pair := wire.ArrayElements(e)
		if len(pair) != 2 {
			return entriesPage{}, fmt.Errorf("entry %d is not a [key, value] pair", p.offset+i)
		}
		if _, err := wire.String(pair[0]); err != nil {
			return entriesPage{}, fmt.Errorf("entry %d has a key that is not a string", p.offset+i)
		}
		p.values[i] = pair[1]
	}
	return p, nil
}
