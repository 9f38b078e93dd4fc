package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"
)

// parseFlags parses a subcommand's flags. On -h it prints usage and the
// flag defaults and reports help (the command then ends successfully); on
// a bad flag it returns a usage error that says what was wrong in one line.
func parseFlags(fs *pflag.FlagSet, args []string, usage string, stderr io.Writer) (help bool, err error) {
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return true, nil
		}
		return false, usagef("%s: %v; run '%s --help' for usage", fs.Name(), err, fs.Name())
	}
	return false, nil
}
