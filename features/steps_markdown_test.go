package features

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/cucumber/godog"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/registry"
)

// pureOps are the registry's pure helpers, by the name scenarios use
// ("truncate:N" takes its limit after the colon). Each returns a JSON-able
// result or an error, which the generic outcome steps then check.
var pureOps = map[string]func(in string) (any, error){
	"title": func(in string) (any, error) {
		if t, ok := registry.Title(in); ok {
			return t, nil
		}
		return nil, nil
	},
	"description": func(in string) (any, error) {
		if d, ok := registry.Description(in); ok {
			return d, nil
		}
		return nil, nil
	},
	"parse_uri": func(in string) (any, error) {
		u, err := registry.Parse(in)
		if err != nil {
			return nil, err
		}
		return map[string]any{"kind": u.Kind.String(), "key": u.Key, "function_id": u.FunctionID}, nil
	},
	"validate_id":   func(in string) (any, error) { return true, ids.ValidateSkillID(in) },
	"validate_name": func(in string) (any, error) { return true, ids.ValidatePromptName(in) },
	"validate_arguments": func(in string) (any, error) {
		return true, registry.ValidatePromptArguments(json.RawMessage(in))
	},
	"section_output": func(in string) (any, error) {
		mime, text := registry.SectionOutput(json.RawMessage(in))
		return map[string]any{"mimeType": mime, "text": text}, nil
	},
	"prompt_output": func(in string) (any, error) {
		return registry.PromptMessages(json.RawMessage(in))
	},
	"internal_namespace": func(in string) (any, error) { return contract.IsInternal(in), nil },
}

func (w *world) markdownSteps(sc *godog.ScenarioContext) {
	sc.Step(`^I evaluate "([^"]*)" on "(.*)"$`, w.evaluate)
	sc.Step(`^I evaluate "([^"]*)" on:$`, func(op string, doc *godog.DocString) error {
		return w.evaluate(op, doc.Content)
	})
}

// evaluate runs a pure op and records its outcome like a call's.
func (w *world) evaluate(op, in string) error {
	in = w.expand(in)
	name, arg, _ := strings.Cut(op, ":")
	var fn func(string) (any, error)
	if name == "truncate" {
		n, err := strconv.Atoi(arg)
		if err != nil {
			return fmt.Errorf("truncate needs a limit, e.g. truncate:140")
		}
		fn = func(s string) (any, error) { return registry.TruncateRunes(s, n), nil }
	} else if fn = pureOps[op]; fn == nil {
		return fmt.Errorf("unknown op %q", op)
	}
	v, err := fn(in)
	if err != nil {
		w.result, w.err = nil, err
		return nil
	}
	if raw, ok := v.(json.RawMessage); ok {
		w.result, w.err = raw, nil
		return nil
	}
	w.result, w.err = json.Marshal(v)
	return w.err
}
