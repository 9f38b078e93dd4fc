package iii

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// spool is the pipe between the read loop and a CallEach caller
// (docs/decisions.md D54): the reader copies the rest of the result's
// frame into it as fast as the socket delivers it, and the caller reads
// it back, splits the array and decodes each element at its own pace.
// The reader must not wait for the caller: the engine bounds the write
// of one frame (the local engine by 10 s), and a caller decoding a 420 MB
// list more slowly than that would make the engine drop the connection;
// nor should it parse anything, so that it keeps the socket's pace under
// the race detector too. The first spoolMemory bytes of backlog are kept
// in memory; past that the bytes go to a temporary file, unlinked at once
// (so nothing outlives the process) and read back with ReadAt: page
// cache, not the worker's heap. When no file can be made the backlog
// stays in memory, as the whole frame did before D54; a file that fails
// after it was begun fails the call (its bytes cannot be had again).
type spool struct {
	mu       sync.Mutex
	chunks   [][]byte // in memory, in order, before anything in the file
	inMem    int      // bytes in chunks
	file     *os.File // made at the first spill
	named    bool     // its name could not be removed at once: close removes it
	fileEnd  int64    // bytes written to the file
	fileRead int64    // bytes of the file read back
	noFile   bool     // no file could be made: memory only
	done     bool     // the reader has copied the whole frame
	err      error    // the reader failed: the rest never comes
	gone     bool     // the caller closed the spool

	more  chan struct{} // capacity 1: bytes were added, or the spool ended
	begun chan struct{} // closed by the reader when it starts copying
}

// spoolMemory is the backlog kept in memory before bytes go to the file
// (a variable so that tests can make it small).
var spoolMemory = 4 << 20

// errSpoolGone tells the reader that the caller stopped reading.
var errSpoolGone = errors.New("the caller stopped waiting")

func newSpool() *spool {
	return &spool{more: make(chan struct{}, 1), begun: make(chan struct{})}
}

// write appends b (the reader's buffer: it is copied).
func (s *spool) write(b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gone {
		return errSpoolGone
	}
	if s.file == nil && !s.noFile && s.inMem+len(b) > spoolMemory {
		s.makeFile()
	}
	if s.file != nil {
		if _, err := s.file.WriteAt(b, s.fileEnd); err != nil {
			s.err = fmt.Errorf("spool the result past %d bytes in a temporary file: %w", spoolMemory, err)
			s.wake()
			return s.err
		}
		s.fileEnd += int64(len(b))
	} else {
		s.chunks = append(s.chunks, append([]byte(nil), b...))
		s.inMem += len(b)
	}
	s.wake()
	return nil
}

// makeFile makes the temporary file; without one the spool keeps to
// memory.
func (s *spool) makeFile() {
	f, err := os.CreateTemp("", "skills-result-*")
	if err != nil {
		s.noFile = true
		return
	}
	s.file, s.named = f, os.Remove(f.Name()) != nil // unlinked where the system allows it
}

// finish marks the end of the frame (err nil) or its loss.
func (s *spool) finish(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done = true
	if err != nil && s.err == nil {
		s.err = err
	}
	s.wake()
}

func (s *spool) wake() {
	select {
	case s.more <- struct{}{}:
	default:
	}
}

// reader reads the spool back from its start; a read waits for the
// reader's bytes, or ctx.
func (s *spool) reader(ctx context.Context) io.Reader { return spoolReader{s, ctx} }

type spoolReader struct {
	s   *spool
	ctx context.Context
}

func (r spoolReader) Read(p []byte) (int, error) {
	s := r.s
	for {
		s.mu.Lock()
		if len(s.chunks) > 0 {
			n := copy(p, s.chunks[0])
			if s.chunks[0] = s.chunks[0][n:]; len(s.chunks[0]) == 0 {
				s.chunks[0] = nil
				s.chunks = s.chunks[1:]
			}
			s.inMem -= n
			s.mu.Unlock()
			return n, nil
		}
		if s.fileRead < s.fileEnd {
			n := int(min(int64(len(p)), s.fileEnd-s.fileRead))
			f, off := s.file, s.fileRead
			s.fileRead += int64(n)
			s.mu.Unlock()
			// Only close, on the caller's goroutine too, closes the file.
			return f.ReadAt(p[:n], off)
		}
		err, done := s.err, s.done
		s.mu.Unlock()
		switch {
		case err != nil:
			return 0, err
		case done:
			return 0, io.EOF
		}
		select {
		case <-s.more:
		case <-r.ctx.Done():
			return 0, r.ctx.Err()
		}
	}
}

// close ends the spool for both sides: the reader's next write fails, and
// the file is closed (and removed, where it could not be at once).
func (s *spool) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gone = true
	s.chunks, s.inMem = nil, 0
	if s.file != nil {
		s.file.Close()
		if s.named {
			_ = os.Remove(s.file.Name())
		}
		s.file = nil
	}
}
