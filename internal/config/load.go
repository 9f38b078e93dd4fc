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
// On any failure (missing or unreadable file, invalid YAML, a wrong type
// anywhere, an invalid value) Load returns Default() and an error saying
// what was wrong, with which key and what is allowed. The defaults do not
// record the file's directory: like the reference worker, a worker that
// loaded no config resolves globs against the current directory (the
// defaults have no globs anyway). A missing file's error matches
// fs.ErrNotExist.
func Load(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if pe, ok := errors.AsType[*fs.PathError](err); ok {
			err = pe.Err // the path is named once, below
		}
		return Default(), fmt.Errorf("read config %s: %w", path, err)
	}
	cfg, err := Parse(data)
	if err == nil {
		err = cfg.Validate()
	}
	if err != nil {
		return Default(), fmt.Errorf("config %s: %w", path, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return Default(), fmt.Errorf("config %s: cannot make the path absolute: %w", path, err)
	}
	cfg.Dir = filepath.Dir(abs)
	return cfg, nil
}
