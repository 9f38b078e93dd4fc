package tools

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/google/shlex"

	"github.com/iii-hq/skills-go/internal/ids"
)

// Template is a tool's command line, split into words once, when the
// SKILL.md is parsed: the first word is the program. A placeholder
// ({{name}} or {{name:modifier}}) is replaced inside its word when the
// tool is called, so a value can never add, split or remove a word, nor
// bring a program, a redirection or a variable with it (D37).
type Template struct {
	Line  string // as written
	Words []Word
}

// Word is one word of a Template: literal text and placeholders in order.
type Word []Fragment

// Fragment is literal text, or a placeholder when Param is set.
type Fragment struct {
	Literal  string
	Param    string
	Modifier string // after the colon: a flag for a boolean, else a default
	HasMod   bool
}

// placeholderRe finds {{name}} and {{name:modifier}}.
var placeholderRe = regexp.MustCompile(`\{\{([A-Za-z_][A-Za-z0-9_-]*)(?::([^}]*))?\}\}`)

// ParseTemplate splits line into words as a shell would quote them (single
// and double quotes, backslash escapes) without expanding anything: $HOME,
// *, ;, | and > stay literal characters of their word. An unterminated
// quote or a trailing backslash is an error, as is a line with no words.
func ParseTemplate(line string) (Template, error) {
	words, err := shlex.Split(line)
	if err != nil {
		return Template{}, fmt.Errorf("command %s: %v", ids.Quote(line), err)
	}
	if len(words) == 0 {
		return Template{}, errors.New("command is empty")
	}
	t := Template{Line: line}
	for _, w := range words {
		word, err := parseWord(w)
		if err != nil {
			return Template{}, fmt.Errorf("command %s: %v", ids.Quote(line), err)
		}
		t.Words = append(t.Words, word)
	}
	if len(t.Words[0]) != 1 || t.Words[0][0].Param != "" {
		return Template{}, fmt.Errorf("command %s: the program (first word) must be literal, not a placeholder", ids.Quote(line))
	}
	return t, nil
}

func parseWord(w string) (Word, error) {
	var word Word
	rest := w
	for rest != "" {
		loc := placeholderRe.FindStringSubmatchIndex(rest)
		if loc == nil {
			if strings.Contains(rest, "{{") {
				return nil, fmt.Errorf("%s: a placeholder is written {{name}} or {{name:modifier}}", ids.Quote(w))
			}
			word = append(word, Fragment{Literal: rest})
			break
		}
		if lit := rest[:loc[0]]; lit != "" {
			if strings.Contains(lit, "{{") {
				return nil, fmt.Errorf("%s: a placeholder is written {{name}} or {{name:modifier}}", ids.Quote(w))
			}
			word = append(word, Fragment{Literal: lit})
		}
		f := Fragment{Param: rest[loc[2]:loc[3]]}
		if loc[4] >= 0 {
			f.Modifier, f.HasMod = rest[loc[4]:loc[5]], true
		}
		word = append(word, f)
		rest = rest[loc[1]:]
	}
	return word, nil
}

// Program is the template's first word.
func (t Template) Program() string { return t.Words[0][0].Literal }

// Params lists the parameter names the template uses, in order of first
// use.
func (t Template) Params() []string {
	var names []string
	seen := map[string]bool{}
	for _, w := range t.Words {
		for _, f := range w {
			if f.Param != "" && !seen[f.Param] {
				seen[f.Param] = true
				names = append(names, f.Param)
			}
		}
	}
	return names
}

// Args builds the argument list (after the program) for checked values
// (see Check), by the rules of D37:
//
//   - a placeholder inside a word is replaced by the value as text;
//   - a word that is exactly one placeholder of an array becomes one
//     argument per item; inside a longer word the items are joined with
//     spaces;
//   - {{x:--flag}} on a boolean gives --flag when x is true and nothing
//     otherwise; on any other type, {{x:value}} gives value when x has
//     none (it wins over the table's default);
//   - a word needing a value that has none (given or default) is left
//     out, as is a word that comes out empty from boolean flags alone.
//
// A value the caller gave never begins an argument with "-", so the
// program cannot take it for an option: such a call is an ArgumentError,
// unless the parameter allows a leading dash (Param.LeadingDash) or the
// word comes after a literal "--" word, which ends the options of most
// programs (docs/tools.md, "Values are never options"). Values from the
// template and the table's defaults are the author's, and pass.
func (t Template) Args(params []Param, values map[string]any) ([]string, error) {
	byName := make(map[string]Param, len(params))
	for _, p := range params {
		byName[p.Name] = p
	}
	var args []string
	operands := false // after a literal "--": no word is an option
	for _, w := range t.Words[1:] {
		out, lead := expandWord(w, byName, values)
		if lead != nil && !operands && !lead.param.LeadingDash {
			return nil, lead.refusal(t.Program())
		}
		args = append(args, out...)
		if len(w) == 1 && w[0].Param == "" && w[0].Literal == EndOfOptions {
			operands = true
		}
	}
	return args, nil
}

// EndOfOptions is the word after which a program of the usual kind
// (getopt, Go's flag, most others) reads no more options: a value may
// begin with "-" in a word after it.
const EndOfOptions = "--"

// leadingDash is a caller's value that would begin an argument with "-".
type leadingDash struct {
	param Param
	value string
	item  int // the array item, or -1
}

func (l *leadingDash) refusal(program string) error {
	what := "the value " + ids.Quote(l.value)
	if l.item >= 0 {
		what = fmt.Sprintf("item %d, %s,", l.item, ids.Quote(l.value))
	}
	return argErr("parameter %s: %s begins with \"-\", so %s could take it for an option; give a value that does not begin with \"-\" (a path can start with ./), or ask the skill's author to allow it (a Leading dash column saying yes, or -- before the placeholder in the command)",
		l.param.Name, what, program)
}

// expandWord gives the arguments of one word, and the caller's value
// that begins one of them with "-", if any.
func expandWord(w Word, params map[string]Param, values map[string]any) ([]string, *leadingDash) {
	if len(w) == 1 && w[0].Param != "" {
		f := w[0]
		p := params[f.Param]
		v, ok, given := resolve(f, p, values)
		if !ok {
			return nil, nil
		}
		if items, isArray := v.([]string); isArray {
			if given {
				for i, item := range items {
					if strings.HasPrefix(item, "-") {
						return items, &leadingDash{param: p, value: item, item: i}
					}
				}
			}
			return items, nil
		}
		s := asText(v)
		if s == "" && p.Type == TypeBoolean {
			return nil, nil
		}
		if given && strings.HasPrefix(s, "-") {
			return []string{s}, &leadingDash{param: p, value: s, item: -1}
		}
		return []string{s}, nil
	}
	var b strings.Builder
	var lead *leadingDash
	for _, f := range w {
		if f.Param == "" {
			b.WriteString(f.Literal)
			continue
		}
		p := params[f.Param]
		v, ok, given := resolve(f, p, values)
		if !ok {
			return nil, nil
		}
		s := asText(v)
		if b.Len() == 0 && given && strings.HasPrefix(s, "-") {
			lead = &leadingDash{param: p, value: s, item: -1}
		}
		b.WriteString(s)
	}
	return []string{b.String()}, lead
}

// resolve is the value a placeholder stands for; ok is false when there
// is none, and given reports that the caller gave it. A boolean with a
// modifier stands for the modifier or "".
func resolve(f Fragment, p Param, values map[string]any) (v any, ok, given bool) {
	v, given = values[f.Param]
	if p.Type == TypeBoolean && f.HasMod {
		if on, _ := v.(bool); given && on || !given && p.Default == true {
			return f.Modifier, true, false
		}
		return "", true, false
	}
	if given {
		return v, true, true
	}
	if f.HasMod {
		return f.Modifier, true, false
	}
	if p.Default != nil {
		return p.Default, true, false
	}
	return nil, false, false
}
