// Package reaper runs a tool's command so that nothing it starts
// outlives it, on Linux (docs/tools.md, "Nothing outlives the call").
//
// The command runs under a helper: this very binary, started again as
// /proc/self/exe under the argv[0] Arg0, which the package's init
// recognises before main runs. The helper makes itself a child
// subreaper (prctl PR_SET_CHILD_SUBREAPER), so every orphan among the
// command's descendants becomes its child, even one that left the
// command's process group and session (setsid); it starts the command
// in a process group of its own, follows the runner's messages
// (terminate, kill; the end of the pipe, when the worker ends, is kill),
// and once the command has ended kills and reaps every process left
// below it before it reports how the command ended.
//
// The worker itself is left as it is: it does not become a subreaper,
// so no reaping of its own can race os/exec's.
//
// A package of its own, with nothing but the standard library and
// x/sys below it, so that its init runs early in a binary's start: the
// helper then pays for few other packages' initialisation.
//
// Elsewhere (macOS, the BSDs, Windows) the package is empty and the
// tools package falls back to process groups.
package reaper
