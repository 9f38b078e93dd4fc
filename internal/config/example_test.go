package config_test

import (
	"fmt"
	"strings"

	"github.com/iii-hq/skills-go/internal/config"
)

func ExampleParse() {
	cfg, err := config.Parse([]byte("scopes:\n  skills: team-skills\nskills:\n  - docs/**/*.md\n"))
	fmt.Println(cfg.Scopes.Skills, cfg.Scopes.Prompts, cfg.StateTimeout(), cfg.Skills, err)

	_, err = config.Parse([]byte("state_timeout_ms: 10s\n"))
	fmt.Println(err)
	// Output:
	// team-skills prompts 10s [docs/**/*.md] <nil>
	// line 1: `state_timeout_ms` must be a whole number of milliseconds from 1 to 9223372036854, got str "10s"
}

// The keys a config file may hold, at each level: what an unknown key's
// warning offers when none is near. Docs point here rather than count
// them; README.md's Configuration table says what each one does.
func ExampleUnknownKey() {
	cfg, _ := config.Parse([]byte("zzzzzzzz: 1\nscopes:\n  zzzzzzzz: x\ntools:\n  zzzzzzzz: 1\nsearch:\n  zzzzzzzz: 1\nmcp:\n  zzzzzzzz: 1\nlint:\n  zzzzzzzz: 1\n"))
	for _, u := range cfg.UnknownKeys {
		fmt.Println(strings.Join(u.Known, " "))
	}
	// Output:
	// scopes state_timeout_ms skills prompts base_dir allow_paths max_files max_response_bytes max_bytes_in_flight max_frame_bytes cache_bytes roots index_max_tokens page_size revisions_kept tools fs_poll_ms reconcile_ms search mcp lint unavailable
	// scopes.skills scopes.prompts
	// tools.enabled tools.workdir tools.env_allow tools.max_concurrent
	// search.embedder search.embed_timeout_ms
	// mcp.sections_allow
	// lint.flagged
}
