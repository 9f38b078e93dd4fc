// Package bench holds the end-to-end benchmarks of the skills worker: the
// registry served by the Go client through the local engine over loopback
// WebSockets, driven by a second client, as an agent's calls would be.
// Results and the commands that produce them are in BENCHMARKS.md.
package bench
