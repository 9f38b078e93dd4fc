package wire

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// frameTypes holds the zero value of every frame type.
var frameTypes = []Message{
	RegisterFunction{}, UnregisterFunction{}, InvokeFunction{}, InvocationResult{}, RegisterTriggerType{},
	RegisterTrigger{}, UnregisterTrigger{}, TriggerRegistrationResult{}, RegisterService{}, Ping{}, Pong{},
	WorkerRegistered{}, Reattach{}, RegistrationRejected{},
}

// tagKey is one json struct tag: the key and whether it is omitempty.
type tagKey struct {
	name     string
	optional bool
}

// tagKeys reads the json tags of struct type t.
func tagKeys(t *testing.T, typ reflect.Type) []tagKey {
	t.Helper()
	var keys []tagKey
	for f := range typ.Fields() {
		tag, ok := f.Tag.Lookup("json")
		if !ok {
			t.Errorf("%s.%s has no json tag", typ.Name(), f.Name)
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		keys = append(keys, tagKey{name: name, optional: opts == "omitempty"})
	}
	return keys
}

// filled returns a value of typ with every field set: strings to a UUID
// (valid everywhere, invocation ids included), raw JSON to a small object,
// pointers to a filled struct.
func filled(typ reflect.Type) reflect.Value {
	v := reflect.New(typ).Elem()
	for i := range typ.NumField() {
		f := v.Field(i)
		switch {
		case f.Type() == reflect.TypeFor[json.RawMessage]():
			f.Set(reflect.ValueOf(rawJSON(`{"k":[1]}`)))
		case f.Kind() == reflect.String:
			f.SetString(testID)
		case f.Kind() == reflect.Pointer:
			p := reflect.New(f.Type().Elem())
			p.Elem().Set(filled(f.Type().Elem()))
			f.Set(p)
		}
	}
	return v
}

// objectKeys splits a JSON object into its members.
func objectKeys(t *testing.T, b []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return m
}

// withType adds the "type" member to an encoding/json rendering of m.
func withType(t *testing.T, m Message) []byte {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	obj := objectKeys(t, b)
	obj["type"] = json.RawMessage(`"` + m.MessageType() + `"`)
	b, err = json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sameJSON compares two JSON texts by value.
func sameJSON(t *testing.T, a, b []byte) string {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return cmp.Diff(va, vb)
}

// TestFieldNamesAgree proves that the three spellings of the protocol's
// keys are one: the json struct tags of message.go, the fieldNames table
// that Decode reads keys with and Encode writes them from, and what
// actually goes on the wire. For every frame type it checks that Encode
// writes exactly the tagged keys (the non-omitempty ones even when empty),
// that encoding/json, reading the tags, renders the same object, that
// Decode reads encoding/json's rendering back, and that Decode requires
// exactly the keys the tags do not mark omitempty.
func TestFieldNamesAgree(t *testing.T) {
	var types []string
	for _, m := range everyFrame {
		types = append(types, m.MessageType())
	}
	var listed []string
	for _, m := range frameTypes {
		listed = append(listed, m.MessageType())
	}
	if diff := cmp.Diff(slices.Compact(slices.Sorted(slices.Values(types))), slices.Sorted(slices.Values(listed))); diff != "" {
		t.Errorf("frameTypes does not list every frame type of everyFrame (-everyFrame +frameTypes):\n%s", diff)
	}

	tagged := map[string]bool{"type": true}
	nested := map[string]reflect.Type{"error": reflect.TypeFor[ErrorBody](), "action": reflect.TypeFor[Action]()}
	for _, zero := range frameTypes {
		typ := reflect.TypeOf(zero)
		t.Run(typ.Name(), func(t *testing.T) {
			keys := tagKeys(t, typ)
			all, required := map[string]bool{"type": true}, map[string]bool{"type": true}
			for _, k := range keys {
				tagged[k.name] = true
				all[k.name] = true
				if !k.optional {
					required[k.name] = true
				}
				if _, ok := fieldByName[k.name]; !ok {
					t.Errorf("tag %q is not in fieldNames, so Decode ignores it", k.name)
				}
			}

			full := filled(typ).Interface().(Message)
			enc, err := Encode(full)
			if err != nil {
				t.Fatal(err)
			}
			obj := objectKeys(t, enc)
			if diff := cmp.Diff(all, boolSet(obj)); diff != "" {
				t.Errorf("keys Encode writes for a full frame differ from the tags (-tags +Encode):\n%s", diff)
			}
			for name, nt := range nested {
				if _, ok := obj[name]; !ok {
					continue
				}
				want := map[string]bool{}
				for _, k := range tagKeys(t, nt) {
					tagged[k.name] = true
					want[k.name] = true
				}
				if diff := cmp.Diff(want, boolSet(objectKeys(t, obj[name]))); diff != "" {
					t.Errorf("keys Encode writes in %q differ from the tags of %s (-tags +Encode):\n%s", name, nt.Name(), diff)
				}
			}
			byTags := withType(t, full)
			if diff := sameJSON(t, byTags, enc); diff != "" {
				t.Errorf("Encode differs from encoding/json with the tags (-encoding/json +Encode):\n%s", diff)
			}
			got, err := Decode(byTags)
			if err != nil {
				t.Fatalf("Decode of encoding/json's rendering %s: %v", byTags, err)
			}
			if diff := cmp.Diff(full, got); diff != "" {
				t.Errorf("Decode of encoding/json's rendering (-want +got):\n%s", diff)
			}

			empty, err := Encode(zero)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(required, boolSet(objectKeys(t, empty))); diff != "" {
				t.Errorf("keys Encode writes for an empty frame differ from the tags without omitempty (-tags +Encode):\n%s", diff)
			}
			if diff := sameJSON(t, withType(t, zero), empty); diff != "" {
				t.Errorf("empty frame: Encode differs from encoding/json (-encoding/json +Encode):\n%s", diff)
			}

			// Nested objects present but empty: only their required keys.
			hollow := filled(typ)
			for i := range typ.NumField() {
				if f := hollow.Field(i); f.Kind() == reflect.Pointer {
					f.Set(reflect.New(f.Type().Elem()))
				}
			}
			hollowEnc, err := Encode(hollow.Interface().(Message))
			if err != nil {
				t.Fatal(err)
			}
			if diff := sameJSON(t, withType(t, hollow.Interface().(Message)), hollowEnc); diff != "" {
				t.Errorf("empty nested objects: Encode differs from encoding/json (-encoding/json +Encode):\n%s", diff)
			}
			hollowObj := objectKeys(t, hollowEnc)
			for name, nt := range nested {
				if _, ok := hollowObj[name]; !ok {
					continue
				}
				want := map[string]bool{}
				for _, k := range tagKeys(t, nt) {
					if !k.optional {
						want[k.name] = true
					}
				}
				if diff := cmp.Diff(want, boolSet(objectKeys(t, hollowObj[name]))); diff != "" {
					t.Errorf("keys Encode writes in an empty %q differ from the tags of %s without omitempty (-tags +Encode):\n%s", name, nt.Name(), diff)
				}
			}

			checkRequired(t, obj, "", keys)
			for name, nt := range nested {
				if _, ok := obj[name]; ok {
					checkRequired(t, obj, name, tagKeys(t, nt))
				}
			}
		})
	}

	names := map[string]bool{}
	for _, n := range fieldNames {
		if n == "" {
			t.Error("fieldNames has an entry without a name")
		}
		names[n] = true
	}
	if diff := cmp.Diff(slices.Sorted(maps.Keys(names)), slices.Sorted(maps.Keys(tagged))); diff != "" {
		t.Errorf("fieldNames and the struct tags name different keys (-fieldNames +tags):\n%s", diff)
	}
}

// checkRequired drops each key in turn from the full frame obj (from its
// nested object parent when parent is not "") and checks that Decode
// refuses the frame exactly when the tag is not omitempty.
func checkRequired(t *testing.T, obj map[string]json.RawMessage, parent string, keys []tagKey) {
	t.Helper()
	for _, k := range keys {
		frame := maps.Clone(obj)
		where := k.name
		if parent == "" {
			delete(frame, k.name)
		} else {
			inner := objectKeys(t, obj[parent])
			delete(inner, k.name)
			frame[parent] = mustMarshal(t, inner)
			where = parent + "." + k.name
		}
		_, err := Decode(mustMarshal(t, frame))
		switch {
		case k.optional && err != nil:
			t.Errorf("without optional %q: Decode: %v", where, err)
		case !k.optional && (err == nil || !strings.Contains(err.Error(), `missing required field "`+where+`"`)):
			t.Errorf("without required %q: Decode err = %v, want it missing", where, err)
		}
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func boolSet(m map[string]json.RawMessage) map[string]bool {
	s := make(map[string]bool, len(m))
	for k := range m {
		s[k] = true
	}
	return s
}
