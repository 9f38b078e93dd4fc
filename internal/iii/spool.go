package iii

import (
	"context"
	"errors"
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
// stays in memory, as the whole frame did before D54. A file that stops
// taking writes (a full disk, a file size limit) keeps what it took, and
// the rest of the frame goes to memory after it (docs/decisions.md D79):
// the call goes on, at the cost the frame had before D54, rather than
// failing, which made a catalog whose $TMPDIR was full list its scope
// again and again without ever loading it.
type spool struct {
	mu       sync.Mutex
	chunks   [][]byte  // in memory, in order, before anything in the file
	inMem    int       // bytes in chunks and tail
	file     spoolFile // made at the first spill
	named    bool      // its name could not be removed at once: close removes it
	fileEnd  int64     // bytes written to the file
	fileRead int64     // bytes of the file read back
	noFile   bool      // no file could be made, or it stopped taking writes: memory only
	tail     [][]byte  // in memory, in order, after the file (it stopped taking writes)
	done     bool      // the reader has copied the whole frame
	err      error     // the reader failed: the rest never comes
	gone     bool      // the caller closed the spool

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
	switch {
	case s.file != nil && !s.noFile:
		n, err := s.file.WriteAt(b, s.fileEnd)
		s.fileEnd += int64(n) // what the file took stays readable
		if err != nil {
			s.noFile = true // what it did not take, and all after, go to memory
			s.keep(&s.tail, b[n:])
		}
	case s.file != nil:
		s.keep(&s.tail, b)
	default:
		s.keep(&s.chunks, b)
	}
	s.wake()
	return nil
}

// keep appends a copy of b to the chunks q in memory.
func (s *spool) keep(q *[][]byte, b []byte) {
	*q = append(*q, append([]byte(nil), b...))
	s.inMem += len(b)
}

// take moves the first bytes of the chunks q into p.
func (s *spool) take(q *[][]byte, p []byte) int {
	n := copy(p, (*q)[0])
	if (*q)[0] = (*q)[0][n:]; len((*q)[0]) == 0 {
		(*q)[0] = nil
		*q = (*q)[1:]
	}
	s.inMem -= n
	return n
}

// spoolFile is what the spool needs of its file; tests put one that
// fills up in its place.
type spoolFile interface {
	io.ReaderAt
	io.WriterAt
	Close() error
	Name() string
}

// createSpoolFile makes the spool's file (a variable so that tests can
// make one that fills up).
var createSpoolFile = func() (spoolFile, error) { return os.CreateTemp("", "skills-result-*") }

// makeFile makes the temporary file; without one the spool keeps to
// memory.
func (s *spool) makeFile() {
	f, err := createSpoolFile()
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
			n := s.take(&s.chunks, p)
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
		if len(s.tail) > 0 {
			n := s.take(&s.tail, p)
			s.mu.Unlock()
			return n, nil
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
	s.chunks, s.tail, s.inMem = nil, nil, 0
	if s.file != nil {
		s.file.Close()
		if s.named {
			_ = os.Remove(s.file.Name())
		}
		s.file = nil
	}
}
