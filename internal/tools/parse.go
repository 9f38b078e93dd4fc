package tools

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"gopkg.in/yaml.v3"

	"github.com/iii-hq/skills-go/internal/ids"
	"github.com/iii-hq/skills-go/internal/requires"
	"github.com/iii-hq/skills-go/internal/skillmd"
)

// Skill is what a SKILL.md declares for its tools.
type Skill struct {
	Name        string
	Version     string
	Description string
	ReadOnly    bool
	AlwaysAsk   bool
	Network     bool
	Timeout     time.Duration // 1–300 s; 30 s when not given
	Tools       []Tool
}

// Tool is one `### name` block with a command.
type Tool struct {
	Name        string
	Description string
	Params      []Param
	Command     Template
}

// Limits from the seed (§1.2, §2.2, §3.2, §5.3) and D31.
const (
	DefaultTimeout        = 30 * time.Second
	MaxTimeout            = 300 * time.Second
	maxToolDescription    = 256
	maxSkillDescription   = 1024
	maxToolNameLen        = 32
	maxSkillNameLen       = 64
	maxCompatibilityChars = 500
)

var (
	toolNameRe  = regexp.MustCompile(`^[a-z0-9_]+$`)
	skillNameRe = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	paramNameRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)
	// defaultRe finds "(default: X)" at the end of a parameter description.
	defaultRe = regexp.MustCompile(`\(default:\s*([^)]*)\)\s*\.?\s*$`)
)

// knownKeys are the frontmatter keys read here or by the Agent Skills
// format (D31); any other key is kept, ignored and warned about.
var knownKeys = map[string]bool{
	"name": true, "version": true, "description": true, "author": true, "modes": true,
	"read_only": true, "always_ask": true, "timeout": true, "network": true,
	"license": true, "compatibility": true, "metadata": true, "allowed-tools": true,
	requires.KeyRequires: true, // what the skill requires of the live engine (D85)
}

// frontmatter is the YAML block of a SKILL.md, as far as tools need it.
type frontmatter struct {
	Name          string `yaml:"name"`
	Version       string `yaml:"version"`
	Description   string `yaml:"description"`
	ReadOnly      bool   `yaml:"read_only"`
	AlwaysAsk     bool   `yaml:"always_ask"`
	Network       bool   `yaml:"network"`
	Timeout       *int   `yaml:"timeout"`
	Compatibility string `yaml:"compatibility"`
}

// md parses CommonMark with GFM tables.
var md = goldmark.New(goldmark.WithExtensions(extension.Table))

// Parse reads a SKILL.md. The error is fatal for its tools (seed §9.1:
// invalid YAML, a missing required field, a malformed tool block,
// duplicate tool names): the caller serves none of them and reports why.
// warnings are the seed's §9.2 and D31's non-fatal findings. A SKILL.md
// without tool blocks is a plain skill: no tools, no error, unless its
// frontmatter does not parse.
func Parse(src []byte) (skill Skill, warnings []string, err error) {
	front, body, ok := skillmd.SplitFrontmatter(src)
	if !ok {
		return Skill{}, nil, errors.New("no YAML frontmatter: a SKILL.md starts with a --- block holding name, version and description")
	}
	var fm frontmatter
	if err := yaml.Unmarshal(front, &fm); err != nil {
		return Skill{}, nil, fmt.Errorf("invalid YAML frontmatter: %s", ids.Unquoted(err.Error()))
	}
	var keys map[string]any
	_ = yaml.Unmarshal(front, &keys) // it parsed above
	for k := range keys {
		if !knownKeys[k] {
			warnings = append(warnings, fmt.Sprintf("unknown frontmatter field %s (ignored)", ids.Quote(k)))
		}
	}
	skill = Skill{Name: fm.Name, Version: fm.Version, Description: strings.TrimSpace(fm.Description),
		ReadOnly: fm.ReadOnly, AlwaysAsk: fm.AlwaysAsk, Network: fm.Network, Timeout: DefaultTimeout}
	warnings = append(warnings, frontmatterWarnings(fm)...)
	tools, toolWarnings, err := parseTools(body)
	warnings = append(warnings, toolWarnings...)
	if err != nil {
		return skill, warnings, err
	}
	if len(tools) == 0 {
		return skill, warnings, nil
	}
	for _, f := range []struct{ key, value, example string }{
		{"name", fm.Name, "name: disk-usage"},
		{"version", fm.Version, "version: 1.0.0"},
		{"description", skill.Description, "description: What the tools are for."},
	} {
		if strings.TrimSpace(f.value) == "" {
			names := make([]string, len(tools))
			for i, t := range tools {
				names[i] = t.Name
			}
			return skill, warnings, fmt.Errorf("frontmatter field %s is required for a skill with tools (this one has %s): add a line such as %q to the --- block at the top",
				f.key, strings.Join(names, ", "), f.example)
		}
	}
	if fm.Timeout != nil {
		if *fm.Timeout < 1 || time.Duration(*fm.Timeout)*time.Second > MaxTimeout {
			return skill, warnings, fmt.Errorf("timeout %d is out of range: 1 to 300 seconds", *fm.Timeout)
		}
		skill.Timeout = time.Duration(*fm.Timeout) * time.Second
	}
	skill.Tools = tools
	return skill, warnings, nil
}

func frontmatterWarnings(fm frontmatter) []string {
	var w []string
	if fm.Name != "" && (len(fm.Name) > maxSkillNameLen || !skillNameRe.MatchString(fm.Name)) {
		w = append(w, fmt.Sprintf("name %s: 1 to 64 characters of a-z, 0-9 and single hyphens, not at either end", ids.Quote(fm.Name)))
	}
	if n := len([]rune(fm.Description)); n > maxSkillDescription {
		w = append(w, fmt.Sprintf("description is %d characters; at most %d", n, maxSkillDescription))
	}
	if n := len([]rune(fm.Compatibility)); n > maxCompatibilityChars {
		w = append(w, fmt.Sprintf("compatibility is %d characters; at most %d", n, maxCompatibilityChars))
	}
	return w
}

// section is the H3 block being read and its current H4 subsection.
type section struct {
	name        string
	description string
	sub         string // lower-cased H4 title: "parameters", "command" or another
	hasParams   bool
	params      []Param
	hasCommand  bool
	command     string
	err         error
}

func (s *section) isTool() bool { return s.hasCommand || s.hasParams }

// parseTools walks the body's top-level blocks: each H3 opens a section,
// which is a tool if it has a "Parameters" or "Command" H4.
func parseTools(body []byte) ([]Tool, []string, error) {
	doc := md.Parser().Parse(text.NewReader(body))
	var sections []*section
	var cur *section
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		switch n := n.(type) {
		case *gast.Heading:
			title := inlineText(n, body)
			switch {
			case n.Level == 3:
				cur = &section{name: title}
				sections = append(sections, cur)
			case n.Level == 4 && cur != nil:
				cur.sub = strings.ToLower(title)
				switch cur.sub {
				case "parameters":
					cur.hasParams = true
				case "command":
					cur.hasCommand = true
				}
			case n.Level < 3:
				cur = nil
			}
		case *gast.Paragraph:
			if cur == nil {
				continue
			}
			if cur.sub == "" && cur.description == "" {
				cur.description = strings.Join(strings.Fields(inlineText(n, body)), " ")
			}
		case *east.Table:
			if cur != nil && cur.sub == "parameters" && cur.params == nil && cur.err == nil {
				cur.params, cur.err = parseParams(n, body)
			}
		case *gast.FencedCodeBlock, *gast.CodeBlock:
			if cur != nil && cur.sub == "command" && cur.command == "" && cur.err == nil {
				cur.command, cur.err = commandLine(n, body)
			}
		}
	}
	var tools []Tool
	var warnings []string
	seen := map[string]bool{}
	for _, s := range sections {
		if !s.isTool() {
			continue
		}
		t, w, err := s.tool()
		if err != nil {
			return nil, warnings, err
		}
		if seen[t.Name] {
			return nil, warnings, fmt.Errorf("duplicate tool name %s", t.Name)
		}
		seen[t.Name] = true
		warnings = append(warnings, w...)
		tools = append(tools, t)
	}
	return tools, warnings, nil
}

// tool checks a section that declares a tool and builds it.
func (s *section) tool() (Tool, []string, error) {
	var warnings []string
	if len(s.name) > maxToolNameLen || !toolNameRe.MatchString(s.name) {
		return Tool{}, nil, fmt.Errorf("tool name %s: 1 to 32 characters of a-z, 0-9 and _", ids.Quote(s.name))
	}
	if s.err != nil {
		return Tool{}, nil, fmt.Errorf("tool %s: %w", s.name, s.err)
	}
	if !s.hasCommand || s.command == "" {
		return Tool{}, nil, fmt.Errorf("tool %s has no command: add a #### Command heading followed by a code block of one line", s.name)
	}
	if !s.hasParams {
		warnings = append(warnings, fmt.Sprintf("tool %s has no #### Parameters section (it takes none)", s.name))
	}
	desc := s.description
	if r := []rune(desc); len(r) > maxToolDescription {
		desc = string(r[:maxToolDescription])
		warnings = append(warnings, fmt.Sprintf("tool %s: description cut to %d characters", s.name, maxToolDescription))
	}
	tmpl, err := ParseTemplate(s.command)
	if err != nil {
		return Tool{}, nil, fmt.Errorf("tool %s: %w", s.name, err)
	}
	byName := map[string]Param{}
	for _, p := range s.params {
		byName[p.Name] = p
	}
	for _, name := range tmpl.Params() {
		if _, ok := byName[name]; !ok {
			return Tool{}, nil, fmt.Errorf("tool %s: the command uses {{%s}}, which is not one of its parameters (%s)", s.name, name, paramNames(s.params))
		}
	}
	return Tool{Name: s.name, Description: desc, Params: s.params, Command: tmpl}, warnings, nil
}

// parseParams reads a parameter table: columns Name, Type, Required,
// Description and optionally Default and Leading dash, in any order,
// matched by header.
func parseParams(t *east.Table, src []byte) ([]Param, error) {
	col := map[string]int{}
	var rows [][]string
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		var cells []string
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, strings.TrimSpace(inlineText(c, src)))
		}
		if _, header := r.(*east.TableHeader); header {
			for i, h := range cells {
				col[strings.ToLower(h)] = i
			}
			continue
		}
		rows = append(rows, cells)
	}
	for _, need := range []string{"name", "type", "required", "description"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("the parameter table has no %s column; its columns are Name, Type, Required, Description and optionally Default and Leading dash", need)
		}
	}
	cell := func(row []string, name string) string {
		if i, ok := col[name]; ok && i < len(row) {
			return row[i]
		}
		return ""
	}
	params := []Param{}
	seen := map[string]bool{}
	for _, row := range rows {
		p := Param{Name: cell(row, "name"), Description: cell(row, "description")}
		if !paramNameRe.MatchString(p.Name) {
			return nil, fmt.Errorf("parameter name %s: a letter or _ first, then letters, digits, _ or -", ids.Quote(p.Name))
		}
		if seen[p.Name] {
			return nil, fmt.Errorf("duplicate parameter %s", p.Name)
		}
		seen[p.Name] = true
		typ, ok := parseType(cell(row, "type"))
		if !ok {
			return nil, fmt.Errorf("parameter %s: unknown type %s; the types are string, integer, number, boolean, array", p.Name, ids.Quote(cell(row, "type")))
		}
		p.Type = typ
		req, ok := parseYesNo(cell(row, "required"))
		if !ok {
			return nil, fmt.Errorf("parameter %s: Required is %s; write yes or no", p.Name, ids.Quote(cell(row, "required")))
		}
		p.Required = req
		dash, ok := parseYesNo(cell(row, leadingDashColumn))
		if !ok {
			return nil, fmt.Errorf("parameter %s: Leading dash is %s; write yes (a value may begin with -) or no", p.Name, ids.Quote(cell(row, leadingDashColumn)))
		}
		p.LeadingDash = dash
		def := cell(row, "default")
		if def == "" {
			if m := defaultRe.FindStringSubmatch(p.Description); m != nil {
				def = m[1]
			}
		}
		if def != "" && def != "-" {
			v, err := parseValue(typ, strings.Trim(def, "`"))
			if err != nil {
				return nil, fmt.Errorf("parameter %s: default %v", p.Name, err)
			}
			p.Default = v
		}
		params = append(params, p)
	}
	return params, nil
}

// leadingDashColumn is the header (lower-cased) of the optional column
// that lets a parameter's values begin with "-" (Param.LeadingDash).
const leadingDashColumn = "leading dash"

// parseYesNo reads a Required or Leading dash cell; blank is no.
func parseYesNo(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "yes", "y", "true", "required", "✓", "x":
		return true, true
	case "no", "n", "false", "optional", "-", "":
		return false, true
	}
	return false, false
}

// commandLine is the one non-blank line of a command's code block.
func commandLine(n gast.Node, src []byte) (string, error) {
	var lines []string
	segs := n.Lines()
	for i := 0; i < segs.Len(); i++ {
		seg := segs.At(i)
		if line := strings.TrimSpace(string(seg.Value(src))); line != "" {
			lines = append(lines, line)
		}
	}
	switch len(lines) {
	case 0:
		return "", errors.New("the command code block is empty")
	case 1:
		return lines[0], nil
	}
	return "", fmt.Errorf("the command code block has %d lines; a command is one line (for more, call a script in the skill folder)", len(lines))
}

// inlineText is the plain text of a block's inline content: text, code
// spans, emphasis and link texts, with soft line breaks as spaces.
func inlineText(n gast.Node, src []byte) string {
	var b bytes.Buffer
	_ = gast.Walk(n, func(c gast.Node, entering bool) (gast.WalkStatus, error) {
		if !entering {
			return gast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *gast.Text:
			b.Write(c.Segment.Value(src))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *gast.String:
			b.Write(c.Value)
		case *gast.CodeSpan:
			for t := c.FirstChild(); t != nil; t = t.NextSibling() {
				if tx, ok := t.(*gast.Text); ok {
					b.Write(tx.Segment.Value(src))
				}
			}
			return gast.WalkSkipChildren, nil
		}
		return gast.WalkContinue, nil
	})
	return strings.TrimSpace(b.String())
}
