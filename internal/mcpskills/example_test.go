package mcpskills

import (
	"fmt"
	"time"

	"github.com/iii-hq/skills-go/internal/catalog"
	"github.com/iii-hq/skills-go/internal/catalog/catalogtest"
)

func ExampleExtension_Functions() {
	view := catalog.NewView(catalog.ViewConfig{Caller: catalogtest.NewState(), SkillsScope: "skills", Timeout: time.Second})
	for _, fn := range New(Config{View: view}).Functions() {
		fmt.Println(fn.ID)
	}
	// Output:
	// skills::mcp-skills-list
	// skills::mcp-skills-get
	// skills::mcp-skills-read
	// skills::mcp-skills-dir
}
