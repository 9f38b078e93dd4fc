package registry

import (
	"strings"
	"testing"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/ids"
)

func FuzzParseURI(f *testing.F) {
	for _, s := range []string{
		"iii://skills", "iii://brain", "iii://a/b/c", "iii://fn/a/b", "iii://fn", "iii://fn/", "iii://",
		"iii:///fn", "iii://a//b", "iii://x/worker::fn", "iii://fn/iii.on_foo", "brain", "skills",
		"resend/email", "fn/x", "a", "iii://skills/", "iii://Fn/a", "iii://fn/a/" + strings.Repeat("b", 65),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := Parse(s)
		if err != nil {
			if u != (URI{}) {
				t.Fatalf("Parse(%q) failed with %v but returned %+v", s, err, u)
			}
			if e, ok := err.(*contract.Error); !ok || e.Code != contract.CodeInvalidArgument {
				t.Fatalf("Parse(%q) error %v is not invalid_argument", s, err)
			}
		} else {
			checkParsed(t, s, u)
		}

		// Every registrable id reads back as itself, except the one the
		// index shadows.
		if ids.ValidateSkillID(s) == nil {
			u, err := Parse(Scheme + s)
			want := URI{Kind: KindSkill, Key: s}
			if s == "skills" {
				want = URI{Kind: KindIndex}
			}
			if err != nil || u != want {
				t.Fatalf("Parse(%q) = %+v, %v; want %+v", Scheme+s, u, err, want)
			}
		}
	})
}

// checkParsed asserts the invariants of a successful parse.
func checkParsed(t *testing.T, s string, u URI) {
	t.Helper()
	switch u.Kind {
	case KindIndex:
		if s != IndexURI || u.Key != "" || u.FunctionID != "" {
			t.Fatalf("Parse(%q) = %+v", s, u)
		}
	case KindSkill:
		if u.FunctionID != "" || Scheme+u.Key != s || u.Key == "" {
			t.Fatalf("Parse(%q) = %+v", s, u)
		}
		if strings.HasPrefix(u.Key, "/") || strings.HasSuffix(u.Key, "/") || strings.Contains(u.Key, "//") {
			t.Fatalf("Parse(%q) key %q has an empty segment", s, u.Key)
		}
		if first, _, _ := strings.Cut(u.Key, "/"); first == "fn" {
			t.Fatalf("Parse(%q) key %q starts with fn", s, u.Key)
		}
	case KindSection:
		if u.Key != "" || SectionURI(u.FunctionID) != s {
			t.Fatalf("Parse(%q) = %+v does not round-trip", s, u)
		}
		for part := range strings.SplitSeq(u.FunctionID, "::") {
			if err := ids.ValidateSegment(part); err != nil {
				t.Fatalf("Parse(%q) function id %q has an invalid part: %v", s, u.FunctionID, err)
			}
		}
	default:
		t.Fatalf("Parse(%q) returned kind %v without an error", s, u.Kind)
	}
}

func FuzzIndexBullet(f *testing.F) {
	for _, s := range []string{"# t\n\nbody", "", "a\r\nb\n\nc", "\n---\n", "# x\n" + strings.Repeat("y ", 200)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		// One bullet is exactly one line.
		line := renderIndex([]indexEntry{{id: "x", body: body}}, nil)
		if got := strings.Count(strings.TrimPrefix(line, indexIntro), "\n"); got != 1 {
			t.Fatalf("bullet for %q spans %d lines: %q", body, got, line)
		}
		// A frontmatter's fields never break the line either.
		line = renderIndex([]indexEntry{{id: "x", body: "---\ndescription: " + body + "\n---\n" + body}}, nil)
		if got := strings.Count(strings.TrimPrefix(line, indexIntro), "\n"); got != 1 {
			t.Fatalf("bullet for frontmatter %q spans %d lines: %q", body, got, line)
		}
	})
}

// FuzzLinkTarget checks that a URI written as a link reads an id or the
// index, never a section, and that one it cannot follow is refused with
// a code: invalid_argument or not_found. A URI without a link's form is
// left to 0.2's parsing, as written.
func FuzzLinkTarget(f *testing.F) {
	for _, s := range []string{
		"iii://a/./b", "iii://a/b/../c", "iii://a/b#x", "iii://a/{baseDir}/x", "iii://{baseDir}/x", "iii://a/../..",
		"iii://a/../fn/x/y", "iii://fn/../a", "iii://a/b/", "iii://a/%2e%2e/b", "iii://a/./b\x00", "iii://skills/", "iii://a/..",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		for name, resolve := range map[string]func(string) (string, bool, error){"readTarget": readTarget, "LinkTarget": LinkTarget} {
			target, linked, err := resolve(uri)
			switch {
			case err != nil:
				if code := contract.CodeOf(err); code != contract.CodeInvalidArgument && code != contract.CodeNotFound {
					t.Fatalf("%s(%q) = %v, code %q", name, uri, err, code)
				}
			case !linked:
				if target != uri {
					t.Fatalf("%s(%q) = %q without following a link", name, uri, target)
				}
			default:
				if u, err := Parse(target); err != nil || u.Kind == KindSection {
					t.Fatalf("%s(%q) = %q, which parses as %v, %v", name, uri, target, u.Kind, err)
				}
			}
		}
	})
}
