package registry

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/iii-hq/skills-go/internal/iii"
)

// invoke runs one of reg's functions the way the engine client does.
func invoke(reg *Registry, id, payload string) string {
	for _, fn := range reg.Functions() {
		if fn.ID == id {
			out, err := fn.Handler(context.Background(), iii.Request{FunctionID: id, Data: json.RawMessage(payload)})
			if err != nil {
				return "error: " + err.Error()
			}
			b, _ := json.Marshal(out)
			return string(b)
		}
	}
	return "no such function"
}

func ExampleRegistry() {
	engine := newFakeEngine() // an in-memory engine with state::*
	engine.returns("resend::health", `{"content":"API: ok."}`)
	reg := New(Config{Caller: engine})

	invoke(reg, "skills::register", `{"id":"resend","skill":"# resend\n\nEmail provider integration.\n"}`)
	var text string
	_ = json.Unmarshal([]byte(invoke(reg, "skill::fetch", `{"uris":["iii://resend","iii://fn/resend/health"]}`)), &text)
	fmt.Println(text)
	fmt.Println(invoke(reg, "skill::fetch", `{"uri":"iii://x/resend::health"}`))
	// Output:
	// # iii://resend
	//
	// # resend
	//
	// Email provider integration.
	//
	// ---
	//
	// # iii://fn/resend/health
	//
	// API: ok.
	// error: Skill not found: x/resend::health (function links are written iii://fn/resend/health since v0.2.0)
}

func ExampleRegistry_Functions() {
	reg := New(Config{Caller: newFakeEngine()})
	for _, fn := range reg.Functions() {
		fmt.Println(fn.ID)
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
}
