package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"
)

// parseFlags parses a subcommand's flags. On -h it prints usage and the
// flag defaults; on a bad flag it says what was wrong in one line. done
// reports that the command should exit now, with code.
func parseFlags(fs *pflag.FlagSet, args []string, usage string, stderr io.Writer) (code int, done bool) {
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK, true
		}
		fmt.Fprintf(stderr, "%s: %v; run '%s --help' for usage\n", fs.Name(), err, fs.Name())
		return exitUsage, true
	}
	return exitOK, false
}
