package worker

import (
	"fmt"

	"github.com/iii-hq/skills-go/internal/config"
)

// The functions a worker registers, in the order its surfaces give them
// (0.2's, the roots functions, search, diagnostics, then the MCP Skills
// extension's), which is the order of the boot line's prefixes; the
// handshake sends their frames sorted by id (docs/decisions.md D12).
// Approved tool skills (D36) come later, from the tool set. Docs point
// here rather than repeat the list or its length.
func ExampleNew_functions() {
	w := unstarted()
	defer w.Close()
	for _, f := range w.functions {
		fmt.Println(f.ID)
	}
	// Output:
	// skills::register
	// skills::unregister
	// skills::list
	// skills::resources-list
	// skills::resources-read
	// skills::resources-templates
	// skills::fetch_skill
	// skill::fetch
	// prompts::register
	// prompts::unregister
	// prompts::list
	// prompts::mcp-list
	// prompts::mcp-get
	// skills::roots::index
	// skills::roots::load
	// skills::roots::rescan
	// skill::search
	// skills::diagnostics
	// skills::mcp-skills-list
	// skills::mcp-skills-get
	// skills::mcp-skills-read
	// skills::mcp-skills-dir
	// skills::history
	// skills::rollback
	// prompts::history
	// prompts::rollback
	// skills::usage
}

// The boot log line, derived from the function table: the reference
// worker's (v0.3.0, with its three skills::roots::* functions) plus
// skill::search, diagnostics, the MCP Skills extension and the
// revisions (D83, D86).
func ExampleNew_bootLine() {
	w := unstarted()
	defer w.Close()
	fmt.Println("skills registered " + describeFunctions(w.functions))
	// Output:
	// skills registered 18 skills::*, 2 skill::* and 7 prompts::* functions
}

// unstarted is a worker with the default config that never runs.
func unstarted() *Worker {
	w, err := New(config.Default(), Options{URL: "ws://127.0.0.1:1"})
	if err != nil {
		panic(err)
	}
	return w
}
