package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/worker"
)

const devUsage = `Usage: skills dev [flags]

Starts the local iii engine and the skills worker attached to it, until interrupted.
Other workers can connect to the engine; try 'skills call skills::list' in another terminal.
Without a roots key in the config, the Agent Skills folders ./skills, ./.agents/skills,
~/.claude/skills and ~/.codex/skills are served.

Flags:
`

// devCommand is "skills dev": the local engine and the worker in one
// process (worker.Dev), so the registry can be tried without iii
// installed.
type devCommand struct{ io stdio }

// Run serves the engine and the worker until ctx is cancelled.
func (c devCommand) Run(ctx context.Context, args []string) error {
	fs := pflag.NewFlagSet("skills dev", pflag.ContinueOnError)
	var ef engineFlags
	ef.register(fs)
	var wf workerFlags
	wf.register(fs)
	if help, err := parseFlags(fs, args, devUsage, c.io); help || err != nil {
		return err
	}
	if err := ef.validate(fs.Name()); err != nil {
		return err
	}
	log, err := newLogger(fs.Name(), wf.logLevel, c.io.out)
	if err != nil {
		return err
	}
	defer log.Sync() //nolint:errcheck // best effort on exit
	srv, err := startEngine(ctx, ef, log)
	if err != nil {
		return fmt.Errorf("%s: %w", fs.Name(), err)
	}
	// Local use serves the usual Agent Skills folders without a roots key (D30).
	cfg := config.Resolve(loadConfig(locateConfig(wf.configPath, fs.Changed("config")), log), config.ModeDev)
	d, err := worker.NewDev(srv, cfg, worker.Options{Name: workerName(), Logger: log})
	if err != nil {
		return fmt.Errorf("%s: %w", fs.Name(), err)
	}
	defer d.Close() //nolint:errcheck // Run has returned; Close closes the engine
	err = d.Run(ctx)
	if errors.Is(err, worker.ErrRefused) {
		return errReported // Run logged the reason
	}
	return err
}
