package engine

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"go.uber.org/zap"
)

// Durable local state (docs/decisions.md D67, issue 28): with
// Options.DataDir the default namespace's store is kept in
// DataDir/state.log, an append-only log of the store's changes. A write
// (state::set, state::delete, SetState, DeleteState) is acknowledged only
// once its record is on the disk (written and fsynced); a write that
// cannot be persisted is refused with the path and the cause, and the
// store in memory is left as it was. One goroutine owns the file: it
// takes every write waiting, appends them in one write, fsyncs once and
// only then applies them to memory in the same order (group commit), so
// concurrent writers share an fsync and memory never holds a value the
// disk does not.
//
// When the log has grown to twice its size after the last compaction (and
// past compactMinBytes), the store is written afresh to state.log.tmp,
// fsynced, renamed over state.log and the directory fsynced: a crash at
// any point leaves either the old log or the new one, and a left-over
// temporary file is removed at the next start. A record torn by a crash
// (never acknowledged) is cut off at the next start.

// StateLog is the log's name inside DataDir.
const StateLog = "state.log"

// stateLogMagic starts every log; a file without it is not loaded.
const stateLogMagic = "skills-state-log 1\n"

// compactMinBytes is the size under which a log is never compacted.
const compactMinBytes = 4 << 20

// maxBatch bounds the writes one fsync carries.
const maxBatch = 1024

// Record operations.
const (
	opSet   byte = 's'
	opDel   byte = 'd'
	opScope byte = 'g' // a scope that exists (an emptied one, in a compacted log)
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// logFile is what the log writer needs of its file; tests inject one
// that fails.
type logFile interface {
	io.Writer
	Sync() error
	Truncate(size int64) error
	Close() error
}

// stateLogTesting is how a test opens a log (a file that fails) and how
// small a log it compacts.
type stateLogTesting struct {
	open       func(path string) (logFile, error)
	compactMin int64
}

// stateLog is a store's log and the goroutine that writes it.
type stateLog struct {
	path       string
	st         *stateStore
	log        *zap.Logger
	f          logFile
	size       int64 // bytes on disk, all of them whole records
	compactAt  int64
	minCompact int64
	reopen     func(path string) (logFile, error)
	broken     error // set when the file's end is no longer known: every write is refused
	reqs       chan *logReq
	quit       <-chan struct{}
	done       chan struct{}
	buf        []byte
}

// logReq is one write waiting for the disk, and its outcome.
type logReq struct {
	op         byte
	scope, key string
	value      json.RawMessage
	rec        []byte

	old     json.RawMessage
	existed bool
	err     error
	done    chan struct{}
}

// errStateClosed answers a write that comes after the engine closed.
var errStateClosed = errors.New("the engine is closed")

// encodeRecord frames one change: payload length and CRC-32C, then the
// operation, the scope and key (each length-prefixed) and the value.
func encodeRecord(dst []byte, op byte, scope, key string, value []byte) []byte {
	start := len(dst)
	dst = append(dst, make([]byte, 8)...)
	dst = append(dst, op)
	dst = binary.AppendUvarint(dst, uint64(len(scope)))
	dst = append(dst, scope...)
	dst = binary.AppendUvarint(dst, uint64(len(key)))
	dst = append(dst, key...)
	dst = append(dst, value...)
	body := dst[start+8:]
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(body)))
	binary.LittleEndian.PutUint32(dst[start+4:], crc32.Checksum(body, crcTable))
	return dst
}

// decodePayload splits a record's payload; ok is false when it is not one.
func decodePayload(p []byte) (op byte, scope, key string, value []byte, ok bool) {
	if len(p) < 1 {
		return 0, "", "", nil, false
	}
	op, p = p[0], p[1:]
	field := func() (string, bool) {
		n, w := binary.Uvarint(p)
		if w <= 0 || n > uint64(len(p)-w) {
			return "", false
		}
		s := string(p[w : w+int(n)])
		p = p[w+int(n):]
		return s, true
	}
	var ok1, ok2 bool
	scope, ok1 = field()
	key, ok2 = field()
	if !ok1 || !ok2 {
		return 0, "", "", nil, false
	}
	switch op {
	case opSet:
		if !json.Valid(p) {
			return 0, "", "", nil, false
		}
		return op, scope, key, p, true
	case opDel, opScope:
		return op, scope, key, nil, len(p) == 0
	}
	return 0, "", "", nil, false
}

// replayLog applies path's records to st. It returns the length of the
// whole records; whatever follows them (a record a crash tore, never
// acknowledged) is not applied.
func replayLog(path string, st *stateStore) (good int64, total int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close() //nolint:errcheck // read only
	info, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	r := bufio.NewReaderSize(f, 1<<20)
	magic := make([]byte, len(stateLogMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != stateLogMagic {
		return 0, info.Size(), fmt.Errorf("state log %s is not one this engine wrote (no %q header); nothing was loaded. Move it away to start with empty state", path, stateLogMagic[:len(stateLogMagic)-1])
	}
	good = int64(len(magic))
	var head [8]byte
	for {
		if _, err := io.ReadFull(r, head[:]); err != nil {
			return good, info.Size(), nil
		}
		n := int64(binary.LittleEndian.Uint32(head[:4]))
		if n > info.Size()-good-8 {
			return good, info.Size(), nil
		}
		p := make([]byte, n)
		if _, err := io.ReadFull(r, p); err != nil || crc32.Checksum(p, crcTable) != binary.LittleEndian.Uint32(head[4:]) {
			return good, info.Size(), nil
		}
		op, scope, key, value, ok := decodePayload(p)
		if !ok {
			return good, info.Size(), nil
		}
		switch op {
		case opSet:
			if !isCanonical(value) {
				value = canonical(value)
			}
			st.set(scope, key, value)
		case opDel:
			st.remove(scope, key)
		case opScope:
			st.ensureScope(scope)
		}
		good += 8 + n
	}
}

// openStateLog loads dir's state into st and starts the goroutine that
// keeps it, which ends once quit is closed and the writes waiting are
// done. A state.json from before the log is loaded once and renamed
// state.json.migrated; left-over temporary files (a compaction's, or the
// old flusher's) are removed.
// testing changes how the log is opened and compacted (nil: as
// deployed).
func openStateLog(dir string, st *stateStore, log *zap.Logger, quit <-chan struct{}, testing *stateLogTesting) (*stateLog, error) {
	open, minCompact := openAppend, int64(compactMinBytes)
	if testing != nil {
		open, minCompact = testing.open, testing.compactMin
	}
	path := filepath.Join(dir, StateLog)
	leftovers, _ := filepath.Glob(filepath.Join(dir, "."+StateFile+".*"))
	for _, tmp := range append(leftovers, path+".tmp") {
		if err := os.Remove(tmp); err == nil {
			log.Info("removed a temporary file a crash left behind", zap.String("path", tmp))
		}
	}
	// reqs is unbuffered: a write is handed over only to a running writer
	// (one that has stopped never strands it), and the writes parked on
	// it while an fsync runs are the next batch.
	l := &stateLog{path: path, st: st, log: log, quit: quit, reqs: make(chan *logReq),
		done: make(chan struct{}), reopen: open, minCompact: minCompact}
	oldPath := filepath.Join(dir, StateFile)
	good, total, err := replayLog(path, st)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f, found, err := readStateFile(oldPath)
		if err != nil {
			return nil, err
		}
		if found {
			st.loadFile(f)
		}
		if err := l.writeSnapshot(); err != nil {
			return nil, fmt.Errorf("create state log %s: %w", path, err)
		}
		if found {
			log.Info("state.json loaded into the state log", zap.String("from", oldPath), zap.String("to", path))
		}
	case err != nil:
		return nil, err
	default:
		if good < total {
			log.Warn("state log ends in a torn record (a write never acknowledged); cut off",
				zap.String("path", path), zap.Int64("bytes", total-good))
			if err := os.Truncate(path, good); err != nil {
				return nil, fmt.Errorf("cut the torn end of state log %s: %w", path, err)
			}
		}
		l.size = good
	}
	if err := renameMigrated(oldPath); err != nil {
		return nil, err
	}
	if l.f == nil {
		if l.f, err = open(path); err != nil {
			return nil, fmt.Errorf("open state log %s: %w", path, err)
		}
	}
	l.compactAt = max(l.minCompact, 2*l.size)
	return l, nil
}

// renameMigrated moves a state.json the log has taken over out of the way.
func renameMigrated(oldPath string) error {
	if _, err := os.Stat(oldPath); err != nil {
		return nil //nolint:nilerr // none to move
	}
	if err := os.Rename(oldPath, oldPath+".migrated"); err != nil {
		return fmt.Errorf("rename %s, now in the state log: %w", oldPath, err)
	}
	return syncDir(filepath.Dir(oldPath))
}

func openAppend(path string) (logFile, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close() //nolint:errcheck // read only
	return d.Sync()
}

// start runs the writer; the engine's bg group waits for it.
func (l *stateLog) start(done func()) {
	go func() {
		defer done()
		l.run()
	}()
}

func (l *stateLog) run() {
	defer close(l.done)
	defer l.f.Close() //nolint:errcheck // every record written was synced
	for {
		var batch []*logReq
		select {
		case r := <-l.reqs:
			batch = append(batch, r)
		case <-l.quit:
			for {
				select {
				case r := <-l.reqs:
					l.commit([]*logReq{r})
				default:
					return
				}
			}
		}
	gather:
		for len(batch) < maxBatch {
			select {
			case r := <-l.reqs:
				batch = append(batch, r)
			default:
				break gather
			}
		}
		l.commit(batch)
	}
}

// write hands a change to the writer and waits until it is on the disk
// and applied, or refused.
func (l *stateLog) write(op byte, scope, key string, value json.RawMessage) (old json.RawMessage, existed bool, err error) {
	r := &logReq{op: op, scope: scope, key: key, value: value, done: make(chan struct{})}
	r.rec = encodeRecord(nil, op, scope, key, value)
	select {
	case l.reqs <- r:
	case <-l.done:
		return nil, false, fmt.Errorf("state not written to %s: %w", l.path, errStateClosed)
	}
	<-r.done
	return r.old, r.existed, r.err
}

// commit appends a batch, fsyncs, and applies it; on failure it answers
// every write of the batch with the error and applies none.
func (l *stateLog) commit(batch []*logReq) {
	err := l.broken
	if err == nil {
		l.buf = l.buf[:0]
		for _, r := range batch {
			l.buf = append(l.buf, r.rec...)
		}
		if _, err = l.f.Write(l.buf); err == nil {
			err = l.f.Sync()
		}
		if err != nil {
			err = fmt.Errorf("state not written to %s: %w; the write was not applied", l.path, err)
			if terr := l.undo(); terr != nil {
				l.broken = fmt.Errorf("state log %s is unusable until the engine restarts (after %w, cutting it back failed: %v)", l.path, err, terr)
			}
			l.log.Warn("a state write was refused", zap.Error(err))
		}
	}
	if err != nil {
		for _, r := range batch {
			r.err = err
			close(r.done)
		}
		return
	}
	l.size += int64(len(l.buf))
	if cap(l.buf) > 1<<20 {
		l.buf = nil
	}
	for _, r := range batch {
		switch r.op {
		case opSet:
			r.old = l.st.set(r.scope, r.key, r.value)
			r.existed = r.old != nil
		case opDel:
			r.old, r.existed = l.st.remove(r.scope, r.key)
		}
		close(r.done)
	}
	if l.size >= l.compactAt {
		l.compact()
	}
}

// undo cuts the file back to its last whole record after a failed write.
func (l *stateLog) undo() error {
	if err := l.f.Truncate(l.size); err != nil {
		return err
	}
	return l.f.Sync()
}

// compact replaces the log with the store as it is; a failure leaves the
// old log in use and tries again once it has doubled.
func (l *stateLog) compact() {
	if err := l.writeSnapshot(); err != nil {
		l.log.Warn("state log not compacted; still appending to it", zap.String("path", l.path), zap.Error(err))
		l.compactAt = 2 * l.size
	}
}

// writeSnapshot writes the store to path.tmp, fsyncs it, renames it over
// the log, fsyncs the directory and reopens the log for appending.
func (l *stateLog) writeSnapshot() (err error) {
	tmp := l.path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	snap := l.st.snapshot()
	w := bufio.NewWriterSize(f, 1<<20)
	n, _ := w.WriteString(stateLogMagic)
	size := int64(n)
	var rec []byte
	for _, sc := range snap.Scopes {
		rec = encodeRecord(rec[:0], opScope, sc.Scope, "", nil)
		for _, row := range sc.Rows {
			rec = encodeRecord(rec, opSet, sc.Scope, row.Key, row.Value)
		}
		n, err := w.Write(rec)
		size += int64(n)
		if err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, l.path); err != nil {
		return err
	}
	if err := syncDir(filepath.Dir(l.path)); err != nil {
		return err
	}
	nf, err := l.reopen(l.path)
	if err != nil {
		l.broken = fmt.Errorf("state log %s is unusable until the engine restarts (reopening it after compaction: %w)", l.path, err)
		return nil //nolint:nilerr // the new log is in place; writes are refused from now on
	}
	if l.f != nil {
		_ = l.f.Close()
	}
	l.f, l.size = nf, size
	l.compactAt = max(l.minCompact, 2*size)
	return nil
}
