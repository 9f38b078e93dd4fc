package mcpskills

import (
	"net/url"
	"strings"
	"testing"

	"github.com/iii-hq/skills-go/internal/contract"
)

func FuzzSkillPath(f *testing.F) {
	for _, s := range []string{
		"skill://pdf/SKILL.md", "skill://a/b/c/d.py", "skill://pdf", "skill://", "skill:///x", "skill://a/../b",
		"skill://a/./b", "skill://a//b", "skill://a/b\\c", "skill://a/\x00", "iii://a/b", "skill://é/ü.md", "skill://a/b?x=1",
		"skill://0/%200", "skill://a/%2F", "skill://a/%2e%2e", "skill://a/r%C3%A9sum%C3%A9.md", "skill://a/%zz",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		segs, err := skillPath(s)
		if err != nil {
			if e, ok := err.(*contract.Error); !ok || e.Code != contract.CodeInvalidArgument {
				t.Fatalf("skillPath(%q) error %v is not invalid_argument", s, err)
			}
			return
		}
		raw := strings.Split(strings.TrimPrefix(s, "skill://"), "/")
		if len(segs) < 2 || len(segs) != len(raw) {
			t.Fatalf("skillPath(%q) = %q does not split the URI", s, segs)
		}
		for i, seg := range segs {
			if dec, err := url.PathUnescape(raw[i]); err != nil || dec != seg {
				t.Fatalf("skillPath(%q) segment %d = %q, not %q decoded", s, i, seg, raw[i])
			}
			if seg == "" || seg == "." || seg == ".." || strings.ContainsAny(seg, "/\\\x00\n\r") {
				t.Fatalf("skillPath(%q) accepted segment %q", s, seg)
			}
			// What fileURI writes for a name reads back as that name.
			if uri, ok := fileURI("x", seg); !ok || func() bool { back, err := skillPath(uri); return err != nil || back[1] != seg }() {
				t.Fatalf("name %q does not round-trip through fileURI (%q)", seg, uri)
			}
		}
	})
}

// FuzzLinkTarget checks that a skill:// URI written as a link reads a
// file's URI, which skillPath then checks like any other, or is refused
// with invalid_argument or not_found; one without a link's form is left
// to skillPath as written.
func FuzzLinkTarget(f *testing.F) {
	for _, s := range []string{
		"skill://pdf/./x.md", "skill://a/b/../SKILL.md", "skill://a/SKILL.md#x", "skill://a/{baseDir}/x", "skill://a/",
		"skill://a/../..", "skill://a/../b", "skill://a/%2e%2e/b", "skill://a/./b\x00", "skill://a/../b/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		target, linked, err := linkTarget(uri)
		switch {
		case err != nil:
			if code := contract.CodeOf(err); code != contract.CodeInvalidArgument && code != contract.CodeNotFound {
				t.Fatalf("linkTarget(%q) = %v, code %q", uri, err, code)
			}
		case !linked:
			if target != uri {
				t.Fatalf("linkTarget(%q) = %q without following a link", uri, target)
			}
		default:
			segs, err := skillPath(target)
			if err != nil {
				if code := contract.CodeOf(err); code != contract.CodeInvalidArgument {
					t.Fatalf("skillPath(%q) for the link %q = %v, code %q", target, uri, err, code)
				}
				return
			}
			if len(segs) < 2 {
				t.Fatalf("linkTarget(%q) = %q, which names no file", uri, target)
			}
		}
	})
}
