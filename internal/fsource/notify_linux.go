package fsource

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"
	"unsafe"

	"github.com/fsnotify/fsnotify"
	"golang.org/x/sys/unix"
)

// inotifyMask is what a watched directory reports: entries made, removed,
// renamed, written and changed in their attributes (a Stamp's fields),
// and files their writer closed (the end of a write, for Writing).
const inotifyMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MODIFY | unix.IN_ATTRIB |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF |
	unix.IN_CLOSE_WRITE

// maxWriting bounds the files whose events are kept (FileEvents); past it
// a file's events are lost, and the count says when (Files).
const maxWriting = 1024

// queuedName names a file as the queue does: its directory's watch
// descriptor and its name.
type queuedName struct {
	wd   int32
	name string
}

// inotify is the notifier on Linux: the watch owns the inotify descriptor
// so a listing can ask the kernel's queue itself (docs/decisions.md D68).
// The kernel queues an event before the write that caused it returns, and
// the queue is read only under mu, by the reader goroutine after poll(2)
// says it is readable or by Seen: so once Seen returns, every event of a
// change that returned before the call is counted.
type inotify struct {
	fd, stop int // the inotify descriptor; an eventfd that ends the reader

	mu     sync.Mutex
	closed bool // the descriptors are closed (their numbers may be reused)
	seen   uint64
	wds    map[string]int // watched path → watch descriptor
	buf    []byte
	// files is what the queue said of each file lately (FileEvents);
	// dropped is the count when a file's events could not be kept (the
	// map full, an overflow).
	files   map[queuedName]FileEvents
	dropped uint64
	now     func() time.Time // time.Now; a test moves it

	wake chan struct{}
	errs chan error
	done chan struct{}
	once sync.Once
}

func newNotifier() (notifier, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("inotify_init1: %w", err)
	}
	stop, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		_ = unix.Close(fd)
		return nil, fmt.Errorf("eventfd: %w", err)
	}
	n := &inotify{
		fd: fd, stop: stop, wds: map[string]int{}, files: map[queuedName]FileEvents{}, now: time.Now,
		buf:  make([]byte, 64*(unix.SizeofInotifyEvent+unix.NAME_MAX+1)),
		wake: make(chan struct{}, 1), errs: make(chan error, 1), done: make(chan struct{}),
	}
	go n.read()
	return n, nil
}

// read waits for the queue to become readable and drains it, until Close.
func (n *inotify) read() {
	defer close(n.done)
	fds := []unix.PollFd{{Fd: int32(n.fd), Events: unix.POLLIN}, {Fd: int32(n.stop), Events: unix.POLLIN}}
	for {
		fds[0].Revents, fds[1].Revents = 0, 0
		if _, err := unix.Poll(fds, -1); err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			n.fail(fmt.Errorf("poll inotify: %w", err))
			return
		}
		if fds[1].Revents != 0 {
			return
		}
		n.Seen()
	}
}

// Seen drains the queue without blocking and returns the count of events
// read so far; when it read any, the watch's loop is woken.
func (n *inotify) Seen() uint64 {
	n.mu.Lock()
	before := n.seen
	overflow := false
	for !n.closed {
		size, err := unix.Read(n.fd, n.buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || size <= 0 {
			if err != nil && !errors.Is(err, unix.EAGAIN) {
				overflow = true // a failed read may have lost events: rescan
			}
			break
		}
		overflow = n.parse(n.buf[:size]) || overflow
	}
	seen := n.seen
	n.mu.Unlock()
	if seen != before {
		select {
		case n.wake <- struct{}{}:
		default:
		}
	}
	if overflow {
		n.fail(fsnotify.ErrEventOverflow)
	}
	return seen
}

// parse counts the events in b, keeps what they say of each file, and
// forgets the watches the kernel dropped (a directory removed); it
// reports an overflow of the queue.
func (n *inotify) parse(b []byte) (overflow bool) {
	for off := 0; off+unix.SizeofInotifyEvent <= len(b); {
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&b[off]))
		nameEnd := off + unix.SizeofInotifyEvent + int(ev.Len)
		name := string(bytes.TrimRight(b[off+unix.SizeofInotifyEvent:min(nameEnd, len(b))], "\x00"))
		off = nameEnd
		n.seen++
		switch {
		case ev.Mask&unix.IN_Q_OVERFLOW != 0:
			overflow = true
			clear(n.files)
			n.dropped = n.seen
		case ev.Mask&unix.IN_IGNORED != 0:
			for path, wd := range n.wds {
				if wd == int(ev.Wd) {
					delete(n.wds, path)
				}
			}
			for key := range n.files {
				if key.wd == ev.Wd {
					delete(n.files, key)
				}
			}
		case name != "":
			n.note(queuedName{wd: ev.Wd, name: name}, ev.Mask)
		}
	}
	return overflow
}

// note keeps what one event says of a file.
func (n *inotify) note(key queuedName, mask uint32) {
	f, known := n.files[key]
	if !known && len(n.files) >= maxWriting {
		n.dropped = n.seen
		return
	}
	f.Last = n.seen
	switch {
	case mask&unix.IN_MODIFY != 0:
		f.Modify = n.seen
		if f.Began.IsZero() {
			f.Began = n.now()
		}
	case mask&(unix.IN_CLOSE_WRITE|unix.IN_DELETE|unix.IN_MOVED_FROM) != 0:
		f.Began = time.Time{}
	}
	n.files[key] = f
}

// Writing drains the queue, then reports whether a file is still being
// written.
func (n *inotify) Writing() bool {
	n.Seen()
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, f := range n.files {
		if !f.Began.IsZero() {
			return true
		}
	}
	return false
}

// Files drains the queue, then returns what it said of each file lately,
// by the file's path under its watched directory, and the count when
// some file's events were last lost.
func (n *inotify) Files() (map[string]FileEvents, uint64) {
	n.Seen()
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.files) == 0 {
		return nil, n.dropped
	}
	dirs := make(map[int32][]string, len(n.wds))
	for dir, wd := range n.wds {
		dirs[int32(wd)] = append(dirs[int32(wd)], dir) //nolint:gosec // watch descriptors are small
	}
	out := make(map[string]FileEvents, len(n.files))
	for key, f := range n.files {
		for _, dir := range dirs[key.wd] {
			out[filepath.Join(dir, key.name)] = f
		}
	}
	return out, n.dropped
}

// Forget drops what is kept of files whose last event is counted at or
// before upTo and that no writer holds open.
func (n *inotify) Forget(upTo uint64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for key, f := range n.files {
		if f.Last <= upTo && f.Began.IsZero() {
			delete(n.files, key)
		}
	}
}

// fail hands err to the watch's loop, unless one is already waiting.
func (n *inotify) fail(err error) {
	select {
	case n.errs <- err:
	default:
	}
}

func (n *inotify) Add(dir string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return errors.New("watch closed")
	}
	wd, err := unix.InotifyAddWatch(n.fd, dir, inotifyMask)
	if err != nil {
		return fmt.Errorf("watch %s: %w", dir, err)
	}
	n.wds[dir] = wd
	return nil
}

// Remove stops watching dir; a descriptor another path shares (the same
// directory reached twice) is kept.
func (n *inotify) Remove(dir string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	wd, ok := n.wds[dir]
	if !ok || n.closed {
		return nil
	}
	delete(n.wds, dir)
	for _, other := range n.wds {
		if other == wd {
			return nil
		}
	}
	if _, err := unix.InotifyRmWatch(n.fd, uint32(wd)); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("unwatch %s: %w", dir, err)
	}
	return nil
}

func (n *inotify) WatchList() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make([]string, 0, len(n.wds))
	for path := range n.wds {
		out = append(out, path)
	}
	return out
}

func (n *inotify) Exact() bool           { return true }
func (n *inotify) Wake() <-chan struct{} { return n.wake }
func (n *inotify) Errors() <-chan error  { return n.errs }

// Close ends the reader, waits for it, and closes the descriptors.
func (n *inotify) Close() error {
	n.once.Do(func() {
		one := []byte{1, 0, 0, 0, 0, 0, 0, 0}
		_, _ = unix.Write(n.stop, one)
		<-n.done
		n.mu.Lock()
		defer n.mu.Unlock()
		n.closed = true
		_ = unix.Close(n.fd)
		_ = unix.Close(n.stop)
	})
	return nil
}
