package iii

import (
	"encoding/json"
	"errors"
	"os"
	"sync"
)

// spool is the queue between the read loop and a CallEach caller
// (docs/decisions.md D54). The reader must keep the socket's pace: the
// engine bounds the write of one frame (the local engine by 10 s), and a
// caller decoding a 420 MB list more slowly than that would make the
// engine drop the connection if the reader waited for it. So the reader
// never waits: it queues each element, in memory while the backlog is
// under spoolMemory, else in a temporary file (unlinked at once, so
// nothing outlives the process) read back by the caller; the backlog
// costs page cache, not the worker's heap. When no file can be made the
// backlog stays in memory, as the whole frame did before D54.
type spool struct {
	mu     sync.Mutex
	items  []spoolItem // in order; items[head:] not yet taken
	head   int
	inMem  int      // bytes of the elements held in items
	file   *os.File // made at the first spill
	named  bool     // its name could not be removed at once: close removes it
	end    int64    // where the next spilled element goes
	noFile bool     // a file could not be made or written: memory only
	gone   bool     // the caller stopped taking elements (abandon)

	ready chan struct{} // capacity 1: items were added
}

// spoolItem is an element in memory (data) or in the file (off, n).
type spoolItem struct {
	data json.RawMessage
	off  int64
	n    int
}

// spoolMemory is the backlog kept in memory before elements go to the
// file (a variable so that tests can make it small).
var spoolMemory = 4 << 20

// errSpoolGone tells the reader that the caller stopped taking elements.
var errSpoolGone = errors.New("the caller stopped waiting")

func newSpool() *spool { return &spool{ready: make(chan struct{}, 1)} }

// put queues el, in the file once the backlog in memory is full.
func (s *spool) put(el json.RawMessage) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gone {
		return errSpoolGone
	}
	item := spoolItem{data: el}
	if s.inMem+len(el) > spoolMemory && !s.noFile {
		if off, ok := s.spill(el); ok {
			item = spoolItem{off: off, n: len(el)}
		}
	}
	if item.data != nil {
		s.inMem += len(el)
	}
	s.items = append(s.items, item)
	select {
	case s.ready <- struct{}{}:
	default:
	}
	return nil
}

// spill writes el to the file, making it first; false when it cannot,
// and from then on the spool keeps to memory.
func (s *spool) spill(el json.RawMessage) (int64, bool) {
	if s.file == nil {
		f, err := os.CreateTemp("", "skills-result-*")
		if err != nil {
			s.noFile = true
			return 0, false
		}
		s.file, s.named = f, os.Remove(f.Name()) != nil // unlinked where the system allows it
	}
	if _, err := s.file.WriteAt(el, s.end); err != nil {
		s.noFile = true
		return 0, false
	}
	off := s.end
	s.end += int64(len(el))
	return off, true
}

// take hands every queued element to each, in order, on the caller's
// goroutine. An element that cannot be read back from the file is an
// error: the call fails rather than loading a list with a hole in it.
func (s *spool) take(each func(json.RawMessage)) error {
	for {
		s.mu.Lock()
		if s.head == len(s.items) {
			s.items, s.head = s.items[:0], 0
			s.mu.Unlock()
			return nil
		}
		item := s.items[s.head]
		s.items[s.head] = spoolItem{}
		s.head++
		s.inMem -= len(item.data)
		file := s.file
		s.mu.Unlock()
		if item.data == nil {
			item.data = make(json.RawMessage, item.n)
			// The file is closed only by close, on this same goroutine.
			if _, err := file.ReadAt(item.data, item.off); err != nil {
				return err
			}
		}
		each(item.data)
	}
}

// close ends the spool for both sides: the reader's next put fails, and
// the file is closed (and removed, where it could not be at once).
func (s *spool) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gone = true
	s.items = nil
	if s.file != nil {
		s.file.Close()
		if s.named {
			_ = os.Remove(s.file.Name())
		}
		s.file = nil
	}
}
