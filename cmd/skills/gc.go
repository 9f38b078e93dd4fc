package main

import (
	"os"
	"runtime/debug"
)

// workerGCPercent is the collector's target the worker runs with when
// $GOGC does not set one (docs/decisions.md D74). The worker keeps its
// bodies off the heap (D54), so its heap is summaries, listings and
// cached answers, a few MB per 10,000 skills; Go's default of 100 lets
// the heap grow to twice that before collecting, which issue 28 measured
// as the largest part of the worker's memory over its data (RSS 1.53–1.64×
// the bodies after 10,000 registers and 100 index reads; 1.33× at 50).
const workerGCPercent = 50

// tuneGC sets the worker's collector target unless $GOGC already did.
func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(workerGCPercent)
	}
}
