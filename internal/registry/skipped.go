package registry

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
)

// skippedNotFound is the not_found answer to a read of key when key names
// a file the listing skipped (a path the file id rule refuses, a
// collision, a file over the body limit: docs/decisions.md D69): "Skill
// not found: key", then the file and why it is not served, so an agent
// following a link learns that the file exists and what keeps it out.
// It returns nil when no skipped file ends in key. A key that is a valid
// skill id keeps 0.2's bare answer, byte for byte.
func (r *Registry) skippedNotFound(ctx context.Context, key string) *contract.Error {
	if ids.ValidateSkillID(key) == nil || ids.ValidateFilePath(key) != nil {
		return nil
	}
	l, err := r.view.Skills(ctx)
	if err != nil {
		return nil
	}
	suffix := string(filepath.Separator) + filepath.FromSlash(key)
	for _, sk := range l.Skips {
		if !sk.Warning && strings.HasSuffix(sk.Path, suffix) {
			return contract.NotFoundf("Skill not found: %s (the file %s is not served: %s)", ids.Unquoted(key), sk.Path, sk.Reason)
		}
	}
	return nil
}

// withSkipReason replaces a not_found err for key with skippedNotFound's
// answer when there is one.
func (r *Registry) withSkipReason(ctx context.Context, key string, err error) error {
	if !isNotFound(err) {
		return err
	}
	if e := r.skippedNotFound(ctx, key); e != nil {
		return e
	}
	return err
}
