package iii

import "sync"

// Large result frames are reused (issue 28): a worker that answers the
// same large read again and again (the iii://skills index of 10,000
// skills is 1.7 MB) would otherwise allocate a new frame for every
// answer, and the garbage, not the data, would set its resident memory.
// A frame goes back once its connection has written it (replyThen); the
// pool lets the collector take frames nobody asked for again.

// minPooledFrame is the smallest frame worth keeping: small frames cost
// the allocator next to nothing.
const minPooledFrame = 64 << 10

// maxPooledFrame is the largest frame kept: one rare huge answer is not
// held on to.
const maxPooledFrame = 16 << 20

var frames sync.Pool // of *[]byte, each of capacity ≥ minPooledFrame

// frameBuffer is an empty slice of at least size bytes of capacity, a
// reused frame when size is large and one is free.
func frameBuffer(size int) []byte {
	if size >= minPooledFrame {
		if p, ok := frames.Get().(*[]byte); ok {
			if cap(*p) >= size {
				return (*p)[:0]
			}
			frames.Put(p) // too small for this one; another may fit it
		}
	}
	return make([]byte, 0, size)
}

// releaseFrame offers a written frame for reuse; nothing may use it after.
func releaseFrame(frame []byte) {
	if c := cap(frame); c >= minPooledFrame && c <= maxPooledFrame {
		frame = frame[:0]
		frames.Put(&frame)
	}
}
