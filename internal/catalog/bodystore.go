package catalog

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"slices"
	"sync"
	"unsafe"

	"go.uber.org/zap"
)

// BodyStore keeps the catalog's skill bodies off the Go heap
// (docs/decisions.md D54): in one append-only file, each body a record
// addressed by offset and length and read back with ReadAt (pread), so
// the bodies live in the kernel's page cache, not in the worker's heap,
// where the collector's headroom would double them. Only a small index
// (handle → offset, length, checksum) is on the heap.
//
// It is a cache, and the engine's state is the truth: the file is
// removed as soon as it is opened where the system allows it (else at
// Close), so a crash leaves nothing to read back, and every start loads
// the scope again from the engine. A record is never rewritten in place:
// a new value is a new record with a new handle, so a reader never sees
// a body half written or another key's body, and a checksum catches what
// the disk may still get wrong.
//
// A store whose file cannot be created or written falls back to the
// heap: it logs one warning, reports the reason (Failure, shown by
// skills::diagnostics), and refuses further records, which the scope then
// keeps in memory as before; nothing already kept is lost.
//
// Freed records are dead bytes; once they outnumber the live ones the
// live records are copied to a new file, which then replaces the old
// (compact). It is safe for concurrent use.
type BodyStore struct {
	dir string
	log *zap.Logger

	// mu is shared by readers (a pread each) and held alone by appends,
	// frees and the swap at the end of a compaction.
	mu         sync.RWMutex
	f          bodyFile // nil once closed
	path       string   // the file's name while it still has one (removed at Close)
	end        int64    // where the next record goes
	recs       map[uint64]bodyRecord
	next       uint64 // source of handles; 0 is never one
	live, dead int64
	failure    error // why bodies are kept on the heap; nil while the file works
	compacting bool
	closed     bool
	compactWG  sync.WaitGroup
	minDead    int64 // dead bytes below which no compaction starts
	// retryDead is the dead bytes a compaction waits for after one
	// failed: on a full disk each try copies as much as fits before it
	// fails, so trying again at every free would copy without end
	// (docs/decisions.md D79). 0: no compaction has failed.
	retryDead int64
	// onDisk, when set, stands for the disk each new file is on: tests
	// give files a disk that fills up.
	onDisk func(*os.File) bodyFile
}

// bodyFile is what the store needs of its file; tests put a failing one
// in its place.
type bodyFile interface {
	io.ReaderAt
	io.WriterAt
	Close() error
}

// bodyRecord is where one body lies in the file.
type bodyRecord struct {
	off int64
	n   int64
	sum uint32 // CRC-32C of the bytes
}

// minCompactBytes is the dead bytes below which a store is never
// compacted: copying a small file to save less than this is not worth it.
const minCompactBytes = 1 << 20

// bodyFilePattern names the store's files (os.CreateTemp).
const bodyFilePattern = "skills-bodies-*"

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// errStoreOff is what put returns once the store has fallen back to the
// heap.
var errStoreOff = errors.New("body store: not in use")

// OpenBodyStore opens a store in a new file in dir (the system's
// temporary directory when dir is ""). It never fails: a store whose file
// cannot be created has fallen back to the heap from the start (Failure
// says why), and the catalog works as without one.
func OpenBodyStore(dir string, log *zap.Logger) *BodyStore {
	return openBodyStore(dir, log, nil)
}

// openBodyStore is OpenBodyStore with its files on a disk tests make
// (onDisk; nil: the real one).
func openBodyStore(dir string, log *zap.Logger, onDisk func(*os.File) bodyFile) *BodyStore {
	if log == nil {
		log = zap.NewNop()
	}
	if dir == "" {
		dir = os.TempDir()
	}
	b := &BodyStore{dir: dir, log: log, recs: map[uint64]bodyRecord{}, minDead: minCompactBytes, onDisk: onDisk}
	f, path, err := b.create()
	if err != nil {
		b.fallBack(fmt.Errorf("create a file in %s: %w", dir, err))
		return b
	}
	b.f, b.path = f, path
	return b
}

// create makes a new file for records, and removes its name at once
// where the system allows an open file to be removed (path is then "").
func (b *BodyStore) create() (f bodyFile, path string, err error) {
	of, err := os.CreateTemp(b.dir, bodyFilePattern)
	if err != nil {
		return nil, "", err
	}
	f = of
	if b.onDisk != nil {
		f = b.onDisk(of)
	}
	if os.Remove(of.Name()) != nil {
		return f, of.Name(), nil
	}
	return f, "", nil
}

// fallBack records why the store keeps no more records, and says it once
// in the log.
func (b *BodyStore) fallBack(err error) {
	if b.failure != nil {
		return
	}
	b.failure = err
	b.log.Warn("catalog: skill bodies are kept in memory: the body store cannot be used", zap.Error(err))
}

// Failure is why the store keeps bodies on the heap instead of in its
// file; nil while the file works.
func (b *BodyStore) Failure() error {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.failure
}

// put appends body as a new record and returns its handle. An error
// means the body was not stored (the store fell back to the heap, or is
// closed): the caller keeps it in memory.
func (b *BodyStore) put(body string) (uint64, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.failure != nil || b.f == nil {
		return 0, errStoreOff
	}
	data := unsafe.Slice(unsafe.StringData(body), len(body)) // only read
	if _, err := b.f.WriteAt(data, b.end); err != nil {
		b.fallBack(fmt.Errorf("write %d bytes at offset %d: %w", len(body), b.end, err))
		return 0, err
	}
	b.next++
	b.recs[b.next] = bodyRecord{off: b.end, n: int64(len(body)), sum: crc32.Checksum(data, crcTable)}
	b.end += int64(len(body))
	b.live += int64(len(body))
	return b.next, nil
}

// read returns the body of handle h. ok is false when the record was
// freed meanwhile or could not be read back whole and intact: the caller
// reads the body from the engine instead.
func (b *BodyStore) read(h uint64) (body string, ok bool) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	r, found := b.recs[h]
	if !found || b.f == nil {
		return "", false
	}
	buf := make([]byte, r.n)
	if _, err := b.f.ReadAt(buf, r.off); err != nil || crc32.Checksum(buf, crcTable) != r.sum {
		return "", false
	}
	if len(buf) == 0 {
		return "", true
	}
	return unsafe.String(&buf[0], len(buf)), true // buf is not kept: the string owns it
}

// free drops the record of handle h; its bytes are dead until the next
// compaction, which starts here once they outnumber the live ones (and,
// after a compaction failed, once they have doubled since).
func (b *BodyStore) free(h uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	r, ok := b.recs[h]
	if !ok {
		return
	}
	delete(b.recs, h)
	b.live -= r.n
	b.dead += r.n
	if b.dead > b.live && b.dead >= max(b.minDead, b.retryDead) && !b.compacting && !b.closed && b.f != nil {
		b.compacting = true
		b.compactWG.Add(1)
		go b.compact()
	}
}

// Close stops a compaction in flight, closes the file and removes it.
// The store keeps no records after.
func (b *BodyStore) Close() error {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.compactWG.Wait()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.f == nil {
		return nil
	}
	err := b.f.Close()
	if b.path != "" {
		err = errors.Join(err, os.Remove(b.path))
	}
	b.f, b.path, b.recs, b.live, b.dead = nil, "", map[uint64]bodyRecord{}, 0, 0
	return err
}

// compact copies the live records to a new file and swaps it in. The copy
// is made without the lock, from a snapshot of the index: readers and
// writers go on meanwhile (records are never changed in place, so the
// snapshot's bytes stay valid, and the old file is not closed before the
// swap). Under the lock it then drops what was freed meanwhile, copies
// what was added meanwhile (little), and swaps. A compaction that fails
// leaves the old file in use; the next free tries again.
func (b *BodyStore) compact() {
	defer b.compactWG.Done()
	b.mu.RLock()
	old, snapshot := b.f, make([]uint64, 0, len(b.recs))
	for h := range b.recs {
		snapshot = append(snapshot, h)
	}
	b.mu.RUnlock()
	slices.Sort(snapshot) // handles grow with offsets: the old file is read in order

	moved := make(map[uint64]bodyRecord, len(snapshot))
	nf, path, err := b.create()
	if err == nil {
		err = b.copyRecords(old, nf, snapshot, func(h uint64) (bodyRecord, bool) {
			b.mu.RLock()
			defer b.mu.RUnlock()
			r, ok := b.recs[h]
			return r, ok
		}, moved)
	}

	b.mu.Lock()
	defer b.mu.Unlock()
	b.compacting = false
	if err == nil && (b.closed || b.f != old) {
		err = errStoreOff
	}
	if err == nil {
		var added []uint64
		for h := range b.recs {
			if _, ok := moved[h]; !ok {
				added = append(added, h)
			}
		}
		slices.Sort(added)
		err = b.copyRecords(old, nf, added, func(h uint64) (bodyRecord, bool) { r, ok := b.recs[h]; return r, ok }, moved)
	}
	if err != nil {
		if nf != nil {
			nf.Close()
			if path != "" {
				os.Remove(path)
			}
		}
		if !errors.Is(err, errStoreOff) {
			b.retryDead = 2 * b.dead
			b.log.Debug("catalog: body store compaction failed; the old file stays in use until twice its dead bytes", zap.Error(err))
		}
		return
	}
	// Records freed during the copy were copied too: they are the new
	// file's dead bytes.
	recs := make(map[uint64]bodyRecord, len(b.recs))
	var end, live int64
	for h, r := range moved {
		end = max(end, r.off+r.n)
		if _, ok := b.recs[h]; ok {
			recs[h] = r
			live += r.n
		}
	}
	old.Close()
	if b.path != "" {
		os.Remove(b.path)
	}
	b.f, b.path, b.recs, b.end, b.live, b.dead = nf, path, recs, end, live, end-live
	b.retryDead = 0
}

// copyRecords appends the records of handles (looked up with rec; those
// gone are skipped) from old to nf after what moved already holds, and
// records where each went in moved.
func (b *BodyStore) copyRecords(old, nf bodyFile, handles []uint64, rec func(uint64) (bodyRecord, bool), moved map[uint64]bodyRecord) error {
	var end int64
	for _, r := range moved {
		end = max(end, r.off+r.n)
	}
	var buf []byte
	for _, h := range handles {
		r, ok := rec(h)
		if !ok {
			continue
		}
		buf = slices.Grow(buf[:0], int(r.n))[:r.n]
		if _, err := old.ReadAt(buf, r.off); err != nil {
			return fmt.Errorf("read %d bytes at offset %d: %w", r.n, r.off, err)
		}
		if _, err := nf.WriteAt(buf, end); err != nil {
			return fmt.Errorf("write %d bytes at offset %d: %w", r.n, end, err)
		}
		moved[h] = bodyRecord{off: end, n: r.n, sum: r.sum}
		end += r.n
	}
	return nil
}
