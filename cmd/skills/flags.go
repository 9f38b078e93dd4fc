package main

import (
	"errors"
	"fmt"

	"github.com/spf13/pflag"
)

// parseFlags parses a subcommand's flags. On -h or --help it prints usage
// and the flag defaults on standard output, so that `skills mcp --help |
// less` shows them, and reports help (the command then ends successfully);
// on a bad flag it returns a usage error that says what was wrong in one
// line (main prints it on standard error).
func parseFlags(fs *pflag.FlagSet, args []string, usage string, io stdio) (help bool, err error) {
	fs.SetOutput(io.out)
	fs.Usage = func() {
		fmt.Fprint(io.out, usage)
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
