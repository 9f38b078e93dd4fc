package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Load reads, parses and validates the config file at path and records
// its absolute directory in Dir (a relative path is made absolute against
// the current directory).
//
// A key whose value cannot be used (a wrong type, a value out of range, a
// repeated key) keeps its default and is listed in Config.Problems with
// its line, the value and what is allowed; the rest of the file applies
// (docs/decisions.md D66): the caller warns, as for UnknownKeys.
//
// On a failure to read the file at all (missing or unreadable, invalid
// YAML, not a mapping of keys) Load returns Default() and an error saying
// what was wrong. The defaults do not record the file's directory: like
// the reference worker, a worker that loaded no config resolves globs
// against the current directory (the defaults have no globs anyway). A
// missing file's error matches fs.ErrNotExist.
func Load(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if pe, ok := errors.AsType[*fs.PathError](err); ok {
			err = pe.Err // the path is named once, below
		}
		return Default(), fmt.Errorf("read config %s: %w", path, err)
	}
	p := &parser{lines: true}
	cfg, problems, err := parse(data, p)
	if err != nil {
		return Default(), fmt.Errorf("config %s: %w", path, err)
	}
	for _, pr := range cfg.validate() {
		pr.Line = p.keyLines[pr.Key]
		cfg.fallBack(pr.Key)
		problems = append(problems, pr)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return Default(), fmt.Errorf("config %s: cannot make the path absolute: %w", path, err)
	}
	cfg.Dir = filepath.Dir(abs)
	cfg.Problems = problems
	return cfg, nil
}
