package features

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cucumber/godog"

	"github.com/iii-hq/skills-go/internal/iii"
)

// The generic steps: call any function through the engine with a JSON
// payload, then assert on the outcome. Pure evaluations (steps_markdown)
// set the same outcome, so these assertions serve them too.
func (w *world) callSteps(sc *godog.ScenarioContext) {
	sc.Step(`^I call "([^"]*)"$`, func(fn string) error { return w.call(fn, nil) })
	sc.Step(`^I call "([^"]*)" with:$`, func(fn string, doc *godog.DocString) error {
		raw, err := w.payload(doc.Content)
		if err != nil {
			return err
		}
		return w.call(fn, raw)
	})
	sc.Step(`^the skills? "([^"]*)" (?:is|are) registered$`, func(list string) error {
		for id := range strings.SplitSeq(list, ",") {
			id = strings.TrimSpace(id)
			if err := w.register(id, fmt.Sprintf("# %s\n\nBody of %s.\n", id, id)); err != nil {
				return err
			}
		}
		return nil
	})
	sc.Step(`^the skill "([^"]*)" is registered with body:$`, func(id string, doc *godog.DocString) error {
		return w.register(id, w.expand(doc.Content))
	})
	sc.Step(`^I start calling "([^"]*)" with:$`, w.startBackground)
	sc.Step(`^the background call is still running$`, w.backgroundRunning)
	sc.Step(`^the background call finishes$`, w.backgroundFinishes)

	sc.Step(`^(?:the call|it) succeeds$`, func() error { return w.succeeded() })
	sc.Step(`^(?:the call|it) fails$`, func() error { _, err := w.failed(); return err })
	sc.Step(`^(?:the call|it) fails with code "([^"]*)"$`, func(code string) error {
		e, err := w.failed()
		if err == nil && e.Code != code {
			err = fmt.Errorf("want code %q, got %q (message %q)", code, e.Code, e.Message)
		}
		return err
	})
	sc.Step(`^the error message (is|contains|does not contain|starts with) "(.*)"$`, func(op, want string) error {
		e, err := w.failed()
		if err != nil {
			return err
		}
		return compareText("error message", op, e.Message, w.expand(want))
	})

	sc.Step(`^the result is:$`, func(doc *godog.DocString) error { return w.resultAt("", "is", doc.Content) })
	sc.Step(`^the result(?: at "([^"]*)")? (is not|is) (.+)$`, w.resultAt)
	sc.Step(`^the result has no "([^"]*)"$`, func(path string) error {
		v, err := w.value()
		if err != nil {
			return err
		}
		if got, ok := lookup(v, path); ok {
			return fmt.Errorf("want no %q, got %s", path, show(got))
		}
		return nil
	})
	sc.Step(`^the result (contains|does not contain):$`, w.resultContains)
	sc.Step(`^the result(?: at "([^"]*)")? has (\d+) items?$`, func(path string, n int) error {
		items, err := w.items(path)
		if err == nil && len(items) != n {
			err = fmt.Errorf("%q has %d items, want %d: %s", path, len(items), n, show(items))
		}
		return err
	})
	sc.Step(`^the result at "([^"]*)" matches "(.*)"$`, func(path, pattern string) error {
		got, err := w.at(path)
		if err != nil {
			return err
		}
		re, err := regexp.Compile(pattern)
		if err != nil {
			return err
		}
		s, ok := got.(string)
		if !ok || !re.MatchString(s) {
			return fmt.Errorf("%q is %s, want a string matching %s", path, show(got), pattern)
		}
		return nil
	})
	sc.Step(`^every item at "([^"]*)" has:$`, w.everyItemHas)
	sc.Step(`^the items at "([^"]*)" are sorted by "([^"]*)"$`, func(path, key string) error {
		items, err := w.items(path)
		if err != nil {
			return err
		}
		keys := make([]string, len(items))
		for i, it := range items {
			keys[i], _ = lookupString(it, key)
		}
		if !slices.IsSorted(keys) {
			return fmt.Errorf("%q is not sorted by %q: %q", path, key, keys)
		}
		return nil
	})
	// A remembered value expands as JSON: "the result at "x" is {{name}}".
	sc.Step(`^I remember the result at "([^"]*)" as "([^"]*)"$`, func(path, name string) error {
		got, err := w.at(path)
		if err != nil {
			return err
		}
		b, err := json.Marshal(got)
		w.vars[name] = string(b)
		return err
	})

	sc.Step(`^the result text is:$`, func(doc *godog.DocString) error {
		text, err := w.text()
		if err != nil {
			return err
		}
		return compareText("text", "is", text, w.expand(doc.Content))
	})
	sc.Step(`^the result text (contains|does not contain|starts with|ends with) "(.*)"$`, func(op, want string) error {
		text, err := w.text()
		if err != nil {
			return err
		}
		return compareText("text", op, text, unescape(w.expand(want)))
	})
	sc.Step(`^the result text has the line "(.*)"$`, func(line string) error {
		text, err := w.text()
		if err != nil {
			return err
		}
		if !slices.Contains(strings.Split(text, "\n"), w.expand(line)) {
			return fmt.Errorf("no line %q in:\n%s", w.expand(line), text)
		}
		return nil
	})
	sc.Step(`^the result text has at most (\d+) characters$`, func(n int) error {
		text, err := w.text()
		if err != nil {
			return err
		}
		if got := utf8.RuneCountInString(text); got > n {
			return fmt.Errorf("text has %d characters, want at most %d:\n%s", got, n, text)
		}
		return nil
	})
	sc.Step(`^the result text has (\d+) (sections?|characters)$`, func(n int, unit string) error {
		text, err := w.text()
		if err != nil {
			return err
		}
		got := utf8.RuneCountInString(text)
		if unit != "characters" {
			got = strings.Count(text, "\n\n---\n\n") + 1
		}
		if got != n {
			return fmt.Errorf("text has %d %s, want %d:\n%s", got, unit, n, text)
		}
		return nil
	})
}

// payload turns a doc string into a call payload: JSON after expansion.
func (w *world) payload(doc string) (json.RawMessage, error) {
	raw := json.RawMessage(w.expand(doc))
	if !json.Valid(raw) {
		return nil, fmt.Errorf("the payload is not valid JSON:\n%s", doc)
	}
	return raw, nil
}

// call calls fn through the engine (starting the worker on first need)
// and records the outcome. A nil payload is sent as {}.
func (w *world) call(fn string, payload json.RawMessage) error {
	return w.callIn("", fn, payload)
}

// callIn is call naming namespace ns ("": none, so the engine looks in
// its default namespace).
func (w *world) callIn(ns, fn string, payload json.RawMessage) error {
	if err := w.ensureWorker(); err != nil {
		return err
	}
	var data any
	if payload != nil {
		data = payload
	}
	w.result, w.err = w.engineCallIn(context.Background(), ns, fn, data)
	return nil
}

// register registers a skill and requires success.
func (w *world) register(id, body string) error {
	raw, err := json.Marshal(map[string]string{"id": id, "skill": body})
	if err != nil {
		return err
	}
	if err := w.call("skills::register", raw); err != nil {
		return err
	}
	return w.succeeded()
}

// callError is a failed call's wire code and message (code "" for a
// failure that did not come from the wire).
type callError struct{ Code, Message string }

func (w *world) failed() (callError, error) {
	if w.err == nil {
		return callError{}, fmt.Errorf("want a failure, got success: %s", w.result)
	}
	if e, ok := errors.AsType[*iii.Error](w.err); ok {
		return callError{Code: e.Code, Message: e.Message}, nil
	}
	if e, ok := errors.AsType[interface {
		error
		ErrorCode() string
	}](w.err); ok {
		return callError{Code: e.ErrorCode(), Message: w.err.Error()}, nil // e.g. *contract.Error
	}
	return callError{Message: w.err.Error()}, nil
}

func (w *world) succeeded() error {
	if w.err != nil {
		return fmt.Errorf("want success, got error: %v", w.err)
	}
	return nil
}

// value is the decoded result of a successful call.
func (w *world) value() (any, error) {
	if err := w.succeeded(); err != nil {
		return nil, err
	}
	if len(w.result) == 0 {
		return nil, nil // no result field: like null
	}
	return parseJSON(w.result)
}

func (w *world) at(path string) (any, error) {
	v, err := w.value()
	if err != nil {
		return nil, err
	}
	got, ok := lookup(v, path)
	if !ok {
		return nil, fmt.Errorf("no %q in the result %s", path, show(v))
	}
	return got, nil
}

func (w *world) items(path string) ([]any, error) {
	got, err := w.at(path)
	if err != nil {
		return nil, err
	}
	items, ok := got.([]any)
	if !ok {
		return nil, fmt.Errorf("%q is %s, not an array", path, show(got))
	}
	return items, nil
}

// text is the markdown of the result: the result itself when it is a
// string (skill::fetch), else the text of the first resource contents
// (skills::resources-read).
func (w *world) text() (string, error) {
	v, err := w.value()
	if err != nil {
		return "", err
	}
	if s, ok := v.(string); ok {
		return s, nil
	}
	if s, ok := lookupString(v, "contents.0.text"); ok {
		return s, nil
	}
	return "", fmt.Errorf("the result has no text: %s", show(v))
}

func lookupString(v any, path string) (string, bool) {
	got, ok := lookup(v, path)
	if !ok {
		return "", false
	}
	s, ok := got.(string)
	return s, ok
}

func (w *world) resultAt(path, op, lit string) error {
	want, err := parseJSON([]byte(w.expand(lit)))
	if err != nil {
		return fmt.Errorf("expected value %s is not JSON: %w", lit, err)
	}
	got, err := w.at(path)
	if err != nil {
		return err
	}
	if same := equal(want, got); same != (op == "is") {
		return fmt.Errorf("%q is %s, want it %s %s", path, show(got), op, show(want))
	}
	return nil
}

func (w *world) resultContains(op string, doc *godog.DocString) error {
	want, err := parseJSON([]byte(w.expand(doc.Content)))
	if err != nil {
		return fmt.Errorf("expected value is not JSON: %w", err)
	}
	v, err := w.value()
	if err != nil {
		return err
	}
	err = contains(want, v)
	switch {
	case op == "contains" && err != nil:
		return fmt.Errorf("%w\nin %s", err, show(v))
	case op == "does not contain" && err == nil:
		return fmt.Errorf("the result contains %s: %s", show(want), show(v))
	}
	return nil
}

// everyItemHas checks each item's keys against JSON type names ("string",
// "number", "boolean", "array", "object", "null") or "absent".
func (w *world) everyItemHas(path string, doc *godog.DocString) error {
	var want map[string]string
	if err := json.Unmarshal([]byte(doc.Content), &want); err != nil {
		return fmt.Errorf("want a JSON object of type names: %w", err)
	}
	items, err := w.items(path)
	if err != nil {
		return err
	}
	if len(items) == 0 {
		return fmt.Errorf("%q is empty: nothing to check", path)
	}
	for i, it := range items {
		for key, typ := range want {
			got, ok := lookup(it, key)
			switch {
			case typ == "absent" && ok:
				return fmt.Errorf("item %d has %q = %s, want it absent", i, key, show(got))
			case typ != "absent" && (!ok || typeName(got) != typ):
				return fmt.Errorf("item %d: %q is %s, want a %s", i, key, show(got), typ)
			}
		}
	}
	return nil
}

// compareText applies op ("is", "contains", "does not contain", "starts
// with", "ends with") to got.
func compareText(what, op, got, want string) error {
	var ok bool
	switch op {
	case "is":
		ok = got == want
	case "contains":
		ok = strings.Contains(got, want)
	case "does not contain":
		ok = !strings.Contains(got, want)
	case "starts with":
		ok = strings.HasPrefix(got, want)
	case "ends with":
		ok = strings.HasSuffix(got, want)
	}
	if !ok {
		verb := map[string]string{"is": "be", "contains": "contain", "does not contain": "not contain",
			"starts with": "start with", "ends with": "end with"}[op]
		return fmt.Errorf("want the %s to %s %q; it is:\n%s", what, verb, want, got)
	}
	return nil
}

// unescape turns the escapes \n, \t, \" and \\ in a one-line step
// argument into the characters they name, so such steps can match across
// lines and quote quotes.
func unescape(s string) string {
	return strings.NewReplacer(`\\`, `\`, `\n`, "\n", `\t`, "\t", `\"`, `"`).Replace(s)
}
