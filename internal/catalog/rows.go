package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// State rows, interchangeable with the Rust worker's (docs/reference.md
// #state-rows). Decoding is as strict as the Rust worker's serde structs: every
// field they require must be present with the right JSON type, so that a
// row one worker skips is skipped by the other too. Unknown keys (such as
// the v0.2.1 "tools") are ignored.

// SkillRow is a stored skill: scope skills, key = id.
type SkillRow struct {
	ID           string `json:"id"`
	Skill        string `json:"skill"`
	RegisteredAt string `json:"registered_at"`
	// Revision is the body's revision number (docs/decisions.md D83):
	// additive, left out when 0, as on rows written before D83 or by the
	// Rust worker.
	Revision int64 `json:"revision,omitempty"`
}

// PromptRow is a stored prompt: scope prompts, key = name.
type PromptRow struct {
	Name         string      `json:"name"`
	Description  string      `json:"description"`
	Arguments    []PromptArg `json:"arguments"`
	FunctionID   string      `json:"function_id"`
	RegisteredAt string      `json:"registered_at"`
	// Revision is the definition's revision number (docs/decisions.md
	// D83), as SkillRow's.
	Revision int64 `json:"revision,omitempty"`
}

// PromptArg is one declared prompt argument. Description is omitted
// when absent; Required is always written. Values, the suggestions a
// client may complete from, are additive to 0.2 and omitted when none are
// declared, so a row without them is written as 0.2 writes it
// (docs/decisions.md D45).
type PromptArg struct {
	Name        string   `json:"name"`
	Description *string  `json:"description,omitempty"`
	Required    bool     `json:"required"`
	Values      []string `json:"values,omitempty"`
}

// skillWire and promptWire decode rows with presence: nil means the field
// was absent or null.
type skillWire struct {
	ID           *string `json:"id"`
	Skill        *string `json:"skill"`
	RegisteredAt *string `json:"registered_at"`
	Revision     int64   `json:"revision"` // absent: 0 (D83)
}

type promptWire struct {
	Name        *string `json:"name"`
	Description *string `json:"description"`
	Arguments   []struct {
		Name        *string `json:"name"`
		Description *string `json:"description"`
		Required    *bool   `json:"required"`
		// Values is read leniently: the Rust worker ignores the key, so a
		// row whose values are not a list of strings is kept, without them.
		Values json.RawMessage `json:"values"`
	} `json:"arguments"` // optional: absent or null is no arguments
	FunctionID   *string `json:"function_id"`
	RegisteredAt *string `json:"registered_at"`
	Revision     int64   `json:"revision"` // absent: 0 (D83)
}

func (w *skillWire) row() (SkillRow, error) {
	if err := requireFields(field{"id", w.ID}, field{"skill", w.Skill}, field{"registered_at", w.RegisteredAt}); err != nil {
		return SkillRow{}, err
	}
	return SkillRow{ID: *w.ID, Skill: *w.Skill, RegisteredAt: *w.RegisteredAt, Revision: w.Revision}, nil
}

func (w *promptWire) row() (PromptRow, error) {
	if err := requireFields(field{"name", w.Name}, field{"description", w.Description}, field{"function_id", w.FunctionID}, field{"registered_at", w.RegisteredAt}); err != nil {
		return PromptRow{}, err
	}
	row := PromptRow{
		Name:         *w.Name,
		Description:  *w.Description,
		Arguments:    make([]PromptArg, 0, len(w.Arguments)),
		FunctionID:   *w.FunctionID,
		RegisteredAt: *w.RegisteredAt,
		Revision:     w.Revision,
	}
	for i, a := range w.Arguments {
		if a.Name == nil {
			return PromptRow{}, fmt.Errorf("missing field `name` in arguments[%d]", i)
		}
		var values []string
		if json.Unmarshal(a.Values, &values) != nil || len(values) == 0 || slices.Contains(values, "") {
			values = nil
		}
		row.Arguments = append(row.Arguments, PromptArg{Name: *a.Name, Description: a.Description, Required: a.Required != nil && *a.Required, Values: values})
	}
	return row, nil
}

// wireRow is implemented by the *skillWire and *promptWire pointers.
type wireRow[W, R any] interface {
	*W
	row() (R, error)
}

// decodeStored decodes one stored row.
func decodeStored[W any, R any, P wireRow[W, R]](raw json.RawMessage) (R, error) {
	var w W
	if err := json.Unmarshal(raw, &w); err != nil {
		var zero R
		return zero, rowError(err)
	}
	return P(&w).row()
}

// decodeRows decodes a state::list result, skipping rows that do not
// decode. A flat array of well-typed rows (the engine's shape) is decoded
// in one pass; anything else falls back to ListValues and row-by-row
// decoding, which is twice the work on large scopes.
func decodeRows[W any, R any, P wireRow[W, R]](res json.RawMessage) []R {
	if res = bytes.TrimSpace(res); len(res) > 0 && res[0] == '[' {
		var wires []W
		if json.Unmarshal(res, &wires) == nil {
			rows := make([]R, 0, len(wires))
			for i := range wires {
				if r, err := P(&wires[i]).row(); err == nil {
					rows = append(rows, r)
				}
			}
			return rows
		}
	}
	values := ListValues(res)
	rows := make([]R, 0, len(values))
	for _, v := range values {
		if r, err := decodeStored[W, R, P](v); err == nil {
			rows = append(rows, r)
		}
	}
	return rows
}

// DecodeSkillRow decodes one stored skill row, as strictly as the Rust
// worker: the error names the field that was missing or mistyped.
func DecodeSkillRow(raw json.RawMessage) (SkillRow, error) {
	return decodeStored[skillWire, SkillRow](raw)
}

// DecodePromptRow decodes one stored prompt row, as strictly as the Rust
// worker.
func DecodePromptRow(raw json.RawMessage) (PromptRow, error) {
	return decodeStored[promptWire, PromptRow](raw)
}

// field is a decoded string field that a row requires.
type field struct {
	name  string
	value *string
}

// requireFields reports the first field that was absent or null.
func requireFields(fields ...field) error {
	for _, f := range fields {
		if f.value == nil {
			return fmt.Errorf("missing field `%s`", f.name)
		}
	}
	return nil
}

// rowError phrases a JSON decoding failure of a stored row.
func rowError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field != "" {
			return fmt.Errorf("invalid type for field `%s`: %s, expected %s", te.Field, te.Value, te.Type)
		}
		return fmt.Errorf("invalid type: %s, expected an object", te.Value)
	}
	return err
}
