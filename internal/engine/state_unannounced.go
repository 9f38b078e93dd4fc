package engine

import (
	"encoding/json"
	"fmt"
)

// WriteStateUnannounced writes value at scope/key of the default
// namespace's store, or deletes the key when value is nil, and fires no
// state trigger: what a write through another engine sharing the store
// looks like from this one (iii fires a state event only on the engine
// that did the write; docs/engine.md#the-state-trigger). It exists for
// tests of the skills worker's reconcile (docs/decisions.md D73); nothing
// in the product calls it.
func (s *Engine) WriteStateUnannounced(scope, key string, value json.RawMessage) error {
	if value == nil {
		if _, err := s.state.del(scope, key); err != nil {
			return fmt.Errorf("engine: delete state %s/%s unannounced: %w", scope, key, err)
		}
		return nil
	}
	v, err := decodeValue(value)
	if err != nil {
		return fmt.Errorf("engine: set state %s/%s unannounced: %w", scope, key, err)
	}
	if _, err := s.state.put(scope, key, mustEncode(v)); err != nil {
		return fmt.Errorf("engine: set state %s/%s unannounced: %w", scope, key, err)
	}
	return nil
}
