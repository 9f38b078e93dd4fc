// Package tools turns the typed tools of a SKILL.md (docs/decisions.md
// D34–D39, after the seed's SKILL.md specification) into something that
// can run safely: Parse reads a SKILL.md into a Skill and its Tools (with
// goldmark, not regular expressions); a Tool's parameters give the JSON
// Schema of its request and check a call's arguments (Check); its command
// line is a Template split into words as a shell would quote them, but
// never expanded, so a value is always exactly one argument or part of
// one, and never an option (Args); a Runner runs the result with no
// shell, an environment without credentials (FilterEnv), a time limit,
// nothing it starts left running after the call (package reaper on
// Linux, a process group elsewhere), and output kept to its head and
// tail (Run, Envelope).
//
// Nothing here decides whether a tool may run: approvals (tools.lock) are
// the worker's, and only tools from approved files on disk reach a Runner.
package tools
