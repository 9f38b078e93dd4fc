package registry

import (
	"strings"
	"testing"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/fsource"
)

// linksFixture serves a root of two skill folders under team/ and one at
// the top, each linking the others the way public Agent Skills do, and a
// registered body.
func linksFixture(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	for name, content := range map[string]string{
		"skills/team/alpha/SKILL.md":            "---\nname: alpha\ndescription: Alpha.\n---\n# Alpha\n\nSee [guide](./references/guide.md), [beta](../beta/SKILL.md) and [run]({baseDir}/references/guide.md#run).\n",
		"skills/team/alpha/references/guide.md": "# Guide\n\nBack to [alpha](../SKILL.md), on to [notes](notes.md).\n",
		"skills/team/alpha/references/notes.md": "# Notes\n",
		"skills/team/beta/SKILL.md":             "---\nname: beta\ndescription: Beta.\n---\n# Beta\n",
		"skills/pdf/SKILL.md":                   "---\nname: pdf\ndescription: PDF.\n---\n# PDF\n",
	} {
		writeFile(t, dir+"/"+name, content)
	}
	f := newFixture(t, fsource.New(dir, nil, nil, fsource.Roots("skills")))
	f.mustRegisterSkill(t, "resend", "# Resend\n\nSee [api](api).")
	f.mustRegisterSkill(t, "resend/api", "# Resend API\n")
	return f
}

// A URI written by joining a link to its skill's URI reads what the link
// names; resources-read echoes the URI as asked for, as 0.2 does.
func TestReadFollowsLinkForms(t *testing.T) {
	f := linksFixture(t)
	for uri, want := range map[string]string{
		"iii://team/alpha/./references/guide.md":                  "# Guide",
		"iii://team/alpha/../beta/SKILL.md":                       "# Beta",
		"iii://team/alpha/../beta/":                               "# Beta",
		"iii://team/alpha/{baseDir}/references/guide.md#run":      "# Guide",
		"iii://team/alpha/#when-to-use":                           "# Alpha",
		"iii://team/alpha/references/guide.md#top":                "# Guide",
		"iii://team/alpha/references/../references/./notes.md":    "# Notes",
		"iii://team/alpha/../../pdf/SKILL.md":                     "# PDF",
		"iii://resend/./api":                                      "# Resend API",
		"iii://team/alpha/../../team/alpha/references/notes.md#x": "# Notes",
	} {
		out, err := f.reg.resourcesRead(f.ctx, readIn(uri))
		if err != nil {
			t.Errorf("read %s: %v", uri, err)
			continue
		}
		if c := out.Contents[0]; c.URI != uri || !strings.HasPrefix(c.Text, want) {
			t.Errorf("read %s = %q %q, want the uri echoed and text starting %q", uri, c.URI, c.Text, want)
		}
	}
}

// skill::fetch with base resolves each link as written in the base
// document, whatever kind of document it is, and heads each section with
// the URI the link resolved to.
func TestFetchResolvesLinksAgainstBase(t *testing.T) {
	f := linksFixture(t)
	for _, tt := range []struct {
		base  string
		links []string
		heads []string
	}{
		{"iii://team/alpha", []string{"./references/guide.md", "../beta/SKILL.md", "{baseDir}/references/guide.md#run", "#usage"},
			[]string{"iii://team/alpha/references/guide.md", "iii://team/beta", "iii://team/alpha/references/guide.md", "iii://team/alpha"}},
		{"iii://team/alpha/SKILL.md", []string{"references/notes.md", "../beta/"},
			[]string{"iii://team/alpha/references/notes.md", "iii://team/beta"}},
		// A reference file's links are relative to its own folder, under
		// the id it is listed by and under its path as written.
		{"iii://team/alpha/references/guide", []string{"../SKILL.md", "notes.md", "{baseDir}/references/notes.md"},
			[]string{"iii://team/alpha", "iii://team/alpha/references/notes.md", "iii://team/alpha/references/notes.md"}},
		{"iii://team/alpha/references/guide.md", []string{"../SKILL.md", "notes.md#x"},
			[]string{"iii://team/alpha", "iii://team/alpha/references/notes.md"}},
		{"iii://team/alpha/./references/guide.md", []string{"../../../pdf/SKILL.md"}, []string{"iii://pdf"}},
		{"iii://resend", []string{"api", "./api", "iii://pdf"}, []string{"iii://resend/api", "iii://resend/api", "iii://pdf"}},
		{"iii://skills", []string{"pdf/SKILL.md", "team/beta/"}, []string{"iii://pdf", "iii://team/beta"}},
	} {
		got, err := f.reg.fetch(f.ctx, fetchSkillInput{URIs: tt.links, Base: &tt.base})
		if err != nil {
			t.Errorf("fetch %q from %s: %v", tt.links, tt.base, err)
			continue
		}
		var heads []string
		for sec := range strings.SplitSeq(got, fetchSeparator) {
			head, _, _ := strings.Cut(sec, "\n")
			heads = append(heads, strings.TrimPrefix(head, "# "))
		}
		if strings.Join(heads, " ") != strings.Join(tt.heads, " ") {
			t.Errorf("fetch %q from %s: headings %q, want %q", tt.links, tt.base, heads, tt.heads)
		}
	}
}

// A link that cannot be followed is refused naming it (and its base),
// before anything is read; one that names nothing is not found naming
// the URI it resolved to. Nothing is ever read outside the roots: a link
// only ever names an id the registry serves.
func TestLinkErrorsNameTheLink(t *testing.T) {
	f := linksFixture(t)
	f.engine.returns("scope::echo", `"echo"`)
	for _, tt := range []struct {
		base, link string
		code       string
		says       []string
	}{
		{"", "iii://team/alpha/../../../etc/passwd", contract.CodeInvalidArgument, []string{`"iii://team/alpha/../../../etc/passwd"`, "above the registry root"}},
		{"", "iii://team/alpha/%2e%2e/%2e%2e/x", contract.CodeInvalidArgument, []string{"percent-encoded"}},
		{"", "iii://team/alpha/..%2F..%2Fx", contract.CodeInvalidArgument, []string{"percent-encoded"}},
		{"", "iii://team/alpha/./a\x00b", contract.CodeInvalidArgument, []string{"NUL"}},
		{"", "iii://team/alpha/./a\\..\\b", contract.CodeInvalidArgument, []string{"backslash"}},
		{"", "iii://team/./" + strings.Repeat("a", 300), contract.CodeInvalidArgument, []string{"300 bytes long"}},
		{"", "iii://{baseDir}/references/guide.md", contract.CodeInvalidArgument, []string{"base"}},
		{"", "iii://team/alpha/../../fn/scope/echo", contract.CodeInvalidArgument, []string{"section"}},
		{"", "iii://team/alpha/../../", contract.CodeNotFound, []string{"registry root", IndexURI}},
		{"", "iii://team/alpha/../gone/SKILL.md", contract.CodeNotFound, []string{"Skill not found: team/gone", "resolves to iii://team/gone"}},
		{"", "iii://team/alpha/./references/gone.md#x", contract.CodeNotFound, []string{"Skill not found: team/alpha/references/gone.md", "resolves to iii://team/alpha/references/gone.md"}},
		{"iii://team/alpha", "../../../x.md", contract.CodeInvalidArgument, []string{`"../../../x.md" in "iii://team/alpha"`, "above the registry root"}},
		{"iii://team/alpha", "/etc/passwd", contract.CodeInvalidArgument, []string{"starts with /"}},
		{"iii://team/alpha", "https://example.com/x", contract.CodeInvalidArgument, []string{"external link"}},
		{"iii://team/alpha", "mailto:a@b.c", contract.CodeInvalidArgument, []string{"external link"}},
		{"iii://team/alpha", "a%2Fb.md", contract.CodeInvalidArgument, []string{"percent-encoded"}},
		{"iii://team/alpha", "../../fn/scope/echo", contract.CodeInvalidArgument, []string{"section"}},
		{"iii://team/alpha", "../gone/SKILL.md", contract.CodeNotFound, []string{`"../gone/SKILL.md" in "iii://team/alpha" resolves to iii://team/gone`}},
		{"pdf", "x.md", contract.CodeInvalidArgument, []string{"base must be the iii:// URI"}},
		{"iii://fn/scope/echo", "x.md", contract.CodeInvalidArgument, []string{"not an iii://fn/ section"}},
	} {
		in := fetchSkillInput{URIs: []string{"iii://pdf", tt.link}}
		if tt.base != "" {
			in.Base = &tt.base
		}
		got, err := f.reg.fetch(f.ctx, in)
		msg, code := errText(err)
		if code != tt.code || got != "" {
			t.Errorf("fetch %q from %q: %q (%s), want %s", tt.link, tt.base, msg, code, tt.code)
		}
		for _, s := range tt.says {
			if !strings.Contains(msg, s) {
				t.Errorf("fetch %q from %q: %q, want it to say %q", tt.link, tt.base, msg, s)
			}
		}
	}
	if n := len(f.engine.callsTo("scope::echo")); n != 0 {
		t.Errorf("a link ran scope::echo %d times", n)
	}
}

// What 0.2 answers stays as it was: a trailing / alone, a section's
// segments and a blank base are 0.2's.
func TestLinkFormsLeave02Alone(t *testing.T) {
	f := linksFixture(t)
	for uri, want := range map[string]string{
		"iii://pdf/":         "Resource URI may not contain empty segments (no leading, trailing, or doubled '/'): iii://pdf/",
		"iii://a//b":         "Resource URI may not contain empty segments (no leading, trailing, or doubled '/'): iii://a//b",
		"iii://fn/./x":       `invalid section URI segment ".": segment may only contain lowercase ASCII letters, digits, '-' and '_': "."`,
		"iii://x/worker::fn": "Skill not found: x/worker::fn (function links are written iii://fn/worker/fn since v0.2.0)",
	} {
		_, err := f.reg.resourcesRead(f.ctx, readIn(uri))
		if msg, _ := errText(err); msg != want {
			t.Errorf("read %s: %q, want %q", uri, msg, want)
		}
	}
	blank := " "
	if _, err := f.reg.fetch(f.ctx, fetchSkillInput{URI: ptr("pdf"), Base: &blank}); err == nil || err.Error() != "Invalid URI (must start with iii://): pdf" {
		t.Errorf("fetch pdf with a blank base: %v, want 0.2's error", err)
	}
}
