//go:build !linux

package fsource

import (
	"sync"
	"sync/atomic"

	"github.com/fsnotify/fsnotify"
)

// newNotifier is fsnotify's watcher where the watch cannot own the
// kernel's queue (docs/decisions.md D68).
func newNotifier() (notifier, error) { return newFSNotifyNotifier() }

// fsnotifyNotifier is the notifier where the watch cannot own the
// kernel's queue: fsnotify's watcher, with one goroutine counting its
// events. Seen is then only as fresh as fsnotify's delivery.
type fsnotifyNotifier struct {
	w    *fsnotify.Watcher
	seen atomic.Uint64
	wake chan struct{}
	done chan struct{}
	once sync.Once
}

func newFSNotifyNotifier() (*fsnotifyNotifier, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	n := &fsnotifyNotifier{w: w, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go n.count()
	return n, nil
}

// count turns fsnotify's events into the count and a wake-up; it ends
// when Close closes fsnotify's channel.
func (n *fsnotifyNotifier) count() {
	defer close(n.done)
	for range n.w.Events {
		n.seen.Add(1)
		select {
		case n.wake <- struct{}{}:
		default:
		}
	}
}

func (n *fsnotifyNotifier) Add(dir string) error    { return n.w.Add(dir) }
func (n *fsnotifyNotifier) Remove(dir string) error { return n.w.Remove(dir) }
func (n *fsnotifyNotifier) WatchList() []string     { return n.w.WatchList() }
func (n *fsnotifyNotifier) Wake() <-chan struct{}   { return n.wake }
func (n *fsnotifyNotifier) Errors() <-chan error    { return n.w.Errors }
func (n *fsnotifyNotifier) Seen() uint64            { return n.seen.Load() }
func (n *fsnotifyNotifier) Exact() bool             { return false }
func (n *fsnotifyNotifier) Writing() bool           { return false }

func (n *fsnotifyNotifier) Files() (map[string]FileEvents, uint64) { return nil, 0 }
func (n *fsnotifyNotifier) Forget(uint64)                          {}

func (n *fsnotifyNotifier) Close() error {
	var err error
	n.once.Do(func() {
		err = n.w.Close()
		<-n.done
	})
	return err
}
