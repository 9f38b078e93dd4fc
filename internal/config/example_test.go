package config_test

import (
	"fmt"

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
