package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/diagnostics"
	"github.com/iii-hq/skills-go/internal/fsource"
	"github.com/iii-hq/skills-go/internal/tools"
	"github.com/iii-hq/skills-go/internal/toolset"
)

const toolsUsage = `Usage: skills tools list|approve|revoke [<skill-id> ...] [--config ./config.yaml] [--dev] [--yes]

Typed tools (### blocks with a #### Command in a SKILL.md under the config's
globs or roots) run only while tools.enabled is true and the SKILL.md is
approved in tools.lock (see below for where). The worker follows tools.lock:
an approval or a revocation takes effect within a second. Editing an
approved SKILL.md takes its tools away until it is approved again.

  skills tools list                 every tool skill: approved, pending, changed or invalid
  skills tools approve <id> ...     show each tool's command and ask; --yes to approve without asking
  skills tools revoke <id> ...      withdraw approvals

The files searched are those the worker with this config serves; with
--dev, those skills dev serves, which adds the usual Agent Skills folders
(./skills, ./.agents/skills, ~/.claude/skills, ~/.codex/skills) when the
config has no roots key. The config is the worker's: --config, else
$III_CONFIG, else ./config.yaml. A file --config or $III_CONFIG names must
exist; a missing ./config.yaml means the defaults, as for the worker.
tools.lock sits beside a config you keep, or in the working directory
under $III_CONFIG (iii compose's file is not yours to write beside).

Flags:
`

// toolsCommand is "skills tools": the approvals of tool skills (D34).
type toolsCommand struct{ io stdio }

func (c toolsCommand) Run(_ context.Context, args []string) error {
	fs := pflag.NewFlagSet("skills tools", pflag.ContinueOnError)
	configPath := fs.String("config", "config.yaml", "config file the worker uses")
	yes := fs.Bool("yes", false, "approve without asking (for scripts)")
	dev := fs.Bool("dev", false, "search as skills dev serves: the usual Agent Skills folders when the config has no roots")
	if help, err := parseFlags(fs, args, toolsUsage, c.io); help || err != nil {
		return err
	}
	if fs.NArg() < 1 {
		return usagef("skills tools: missing list, approve or revoke; run 'skills tools --help' for usage")
	}
	loc := locateConfig(*configPath, fs.Changed("config"))
	loaded, err := config.LoadAt(loc)
	switch {
	case errors.Is(err, os.ErrNotExist) && loc.Named():
		// Approvals are written beside the config (config.RelativeTo): a
		// mistyped path must not approve into a tools.lock the worker never
		// reads.
		return fmt.Errorf("skills tools: config %s: %s", loc.Path, missingReason(loc))
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("skills tools: %s: %w%s", loc.Path, err, envNote(loc))
	case len(loaded.Problems) > 0:
		// Approvals are not written under a config that does not say
		// what the operator meant: every problem at once (D66).
		texts := make([]string, len(loaded.Problems))
		for i, p := range loaded.Problems {
			texts[i] = p.String()
		}
		return fmt.Errorf("skills tools: config %s: %s%s", loc.Path, strings.Join(texts, "; "), envNote(loc))
	}
	cfg := config.Resolve(loaded, modeOf(*dev))
	src := newSource(cfg, cfg.Skills, nil)
	skills, skips := src.Skills()
	scanned := diagnostics.FromScan(diagnostics.Scan{Skills: skills, SkillSkips: skips, Roots: src.RootDirs()})
	for _, u := range diagnostics.FindUnmatched(loaded, scanned.Files, scanned.Roots, false) {
		fmt.Fprintln(c.io.err, "skills tools: warning: "+u.Reason)
	}
	found, err := classifyToolSkills(cfg, src, skills)
	if err != nil {
		return err
	}
	ids := fs.Args()[1:]
	switch verb := fs.Arg(0); verb {
	case "list":
		if len(ids) > 0 {
			return usagef("skills tools list takes no skill ids")
		}
		return c.list(cfg, found)
	case "approve":
		return c.approve(cfg, found, ids, *yes)
	case "revoke":
		return c.revoke(cfg, found, ids)
	default:
		return usagef("skills tools: unknown %q; use list, approve or revoke", verb)
	}
}

// modeOf is the mode a command inspecting files stands for: skills dev's
// with --dev, else the worker's.
func modeOf(dev bool) config.Mode {
	if dev {
		return config.ModeDev
	}
	return config.ModeWorker
}

// findToolSkills scans the globs and roots of a resolved config (see
// config.Resolve) for SKILL.md files with tool blocks and judges each as
// the worker does (toolset.Classify).
func findToolSkills(cfg config.Config) ([]toolset.Entry, error) {
	src := newSource(cfg, cfg.Skills, nil)
	skills, _ := src.Skills()
	return classifyToolSkills(cfg, src, skills)
}

// classifyToolSkills judges the tool skills among skills, found by src,
// against cfg's tools.lock.
func classifyToolSkills(cfg config.Config, src *fsource.Source, skills []fsource.Skill) ([]toolset.Entry, error) {
	lock, err := tools.ReadLock(cfg.LockPath())
	if err != nil {
		return nil, err
	}
	return toolset.Classify(skills, src.ReadFile, lock), nil
}

func (c toolsCommand) list(cfg config.Config, found []toolset.Entry) error {
	if len(found) == 0 {
		fmt.Fprintf(c.io.out, "No SKILL.md with tools under the config's globs and roots%s.\n", devHint(cfg))
		return nil
	}
	tw := tabwriter.NewWriter(c.io.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STATUS\tSKILL\tTOOLS\tPATH")
	for _, e := range found {
		names := make([]string, len(e.Skill.Tools))
		for i, t := range e.Skill.Tools {
			names[i] = e.Skill.Name + "::" + t.Name
		}
		detail := strings.Join(names, ", ")
		switch {
		case e.Status == tools.StatusInvalid:
			detail = e.Reason
		case e.Reason != "":
			detail += " (not served: " + e.Reason + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Status, e.ID, detail, e.Path)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if !cfg.Tools.Enabled {
		fmt.Fprintf(c.io.out, "\ntools.enabled is false in the config: no tool runs, approved or not.\n")
	}
	return nil
}

// devHint says, for a config without a roots key inspected as the
// worker serves it, how to search the folders skills dev adds; else "".
func devHint(cfg config.Config) string {
	if cfg.RootsSet {
		return ""
	}
	return " (the config has no roots key, so the worker serves no roots; --dev searches the usual Agent Skills folders too, as skills dev serves them)"
}

// pick finds the named skills among those found.
func pick(cfg config.Config, found []toolset.Entry, ids []string) ([]toolset.Entry, error) {
	if len(ids) == 0 {
		return nil, usagef("name the skills, by id (skills tools list shows them)")
	}
	var out []toolset.Entry
	for _, id := range ids {
		i := slices.IndexFunc(found, func(e toolset.Entry) bool { return e.ID == id })
		if i < 0 {
			known := make([]string, len(found))
			for j, e := range found {
				known[j] = e.ID
			}
			return nil, usagef("no SKILL.md with tools has the id %q; the tool skills are: %s%s", id, strings.Join(known, ", "), devHint(cfg))
		}
		out = append(out, found[i])
	}
	return out, nil
}

func (c toolsCommand) approve(cfg config.Config, found []toolset.Entry, ids []string, yes bool) error {
	chosen, err := pick(cfg, found, ids)
	if err != nil {
		return err
	}
	for _, e := range chosen {
		if e.Refused {
			return fmt.Errorf("skills tools approve: %s cannot be approved: %s", e.ID, e.Reason)
		}
	}
	if !yes && !isTerminal(c.io.in) {
		return usagef("skills tools approve: not asking without a terminal (standard input is not one); review the commands with 'skills tools list' and pass --yes to approve")
	}
	lock, err := tools.ReadLock(cfg.LockPath())
	if err != nil {
		return err
	}
	in := bufio.NewReader(c.io.in)
	for _, e := range chosen {
		fmt.Fprintf(c.io.out, "%s (%s)\n", e.ID, e.Path)
		for _, t := range e.Skill.Tools {
			fmt.Fprintf(c.io.out, "  %s::%s runs: %s\n", e.Skill.Name, t.Name, t.Command.Line)
		}
		if !yes {
			fmt.Fprintf(c.io.out, "Approve these commands? [y/N] ")
			answer, _ := in.ReadString('\n')
			if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
				fmt.Fprintf(c.io.out, "not approved\n")
				continue
			}
		}
		lock.Approved[e.Path] = tools.Approval{Skill: e.ID, SHA256: e.Sum,
			ApprovedAt: time.Now().UTC().Format(time.RFC3339), Commands: tools.Commands(e.Skill)}
		fmt.Fprintf(c.io.out, "approved %s\n", e.ID)
	}
	return lock.Write(cfg.LockPath())
}

func (c toolsCommand) revoke(cfg config.Config, found []toolset.Entry, ids []string) error {
	if len(ids) == 0 {
		return usagef("skills tools revoke: name the skills, by id")
	}
	lock, err := tools.ReadLock(cfg.LockPath())
	if err != nil {
		return err
	}
	for _, id := range ids {
		n := 0
		for path, a := range lock.Approved {
			if a.Skill == id || slices.ContainsFunc(found, func(e toolset.Entry) bool { return e.ID == id && e.Path == path }) {
				delete(lock.Approved, path)
				n++
			}
		}
		if n == 0 {
			return usagef("skills tools revoke: %q has no approval in %s", id, cfg.LockPath())
		}
		fmt.Fprintf(c.io.out, "revoked %s\n", id)
	}
	return lock.Write(cfg.LockPath())
}

// isTerminal reports whether r is an interactive terminal: a file the
// terminal driver answers for. A character device is not enough:
// /dev/null is one, and a prompt read from it approves nothing.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && isTerminalFD(f.Fd())
}
