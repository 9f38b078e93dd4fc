package tools

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// LockFile is the approvals file's name; it lives next to the config.
const LockFile = "tools.lock"

// Lock is the approvals of tool skills (D34): a SKILL.md's tools run only
// while the file's sha256 is the one approved for its path.
type Lock struct {
	Version  int                 `json:"version"`
	Approved map[string]Approval `json:"approved"` // by the SKILL.md's absolute path
}

// Approval is one approved SKILL.md.
type Approval struct {
	Skill      string   `json:"skill"`       // its id when approved
	SHA256     string   `json:"sha256"`      // of the whole file
	ApprovedAt string   `json:"approved_at"` // RFC 3339
	Commands   []string `json:"commands"`    // "tool: command line", for the reader of the file
}

// Status of a tool skill against the lock.
const (
	StatusApproved = "approved" // the file is the one approved
	StatusPending  = "pending"  // never approved
	StatusChanged  = "changed"  // approved once, changed since
	StatusInvalid  = "invalid"  // its tools do not parse
)

// Sum is the hex sha256 of a file's bytes.
func Sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// Status says whether the file at path, with sum, may run its tools.
func (l Lock) Status(path, sum string) string {
	a, ok := l.Approved[path]
	switch {
	case !ok:
		return StatusPending
	case a.SHA256 != sum:
		return StatusChanged
	}
	return StatusApproved
}

// ReadLock reads the lock at path; a missing file is an empty lock.
func ReadLock(path string) (Lock, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Lock{Version: 1, Approved: map[string]Approval{}}, nil
	}
	if err != nil {
		return Lock{}, err
	}
	var l Lock
	if err := json.Unmarshal(b, &l); err != nil {
		return Lock{}, fmt.Errorf("%s is not a tools lock: %v", path, err)
	}
	if l.Approved == nil {
		l.Approved = map[string]Approval{}
	}
	return l, nil
}

// Write replaces the lock at path atomically (a temporary file renamed
// over it), readable by its owner only.
func (l Lock) Write(path string) error {
	l.Version = 1
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) //nolint:errcheck // gone after the rename
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close() //nolint:errcheck // the write failed
		return err
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close() //nolint:errcheck // the chmod failed
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Commands lists a skill's tools as "tool: command line", sorted.
func Commands(s Skill) []string {
	out := make([]string, len(s.Tools))
	for i, t := range s.Tools {
		out[i] = t.Name + ": " + t.Command.Line
	}
	slices.Sort(out)
	return out
}
