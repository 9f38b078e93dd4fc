// Package proctest lets tests wait for a process they did not start (a
// tool's grandchild, a killed worker) to end, on the kernel's word rather
// than by polling.
package proctest
