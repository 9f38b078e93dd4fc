package registry

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/contract"
)

func TestFetchURIs(t *testing.T) {
	tests := []struct {
		name    string
		in      fetchSkillInput
		want    []string
		wantErr string
	}{
		{"single uri", fetchSkillInput{URI: ptr("iii://a")}, []string{"iii://a"}, ""},
		{"uris array", fetchSkillInput{URIs: []string{"iii://a", "iii://b"}}, []string{"iii://a", "iii://b"}, ""},
		{"uris wins over uri", fetchSkillInput{URI: ptr("iii://a"), URIs: []string{"iii://b"}}, []string{"iii://b"}, ""},
		{"empty uris falls back to uri", fetchSkillInput{URI: ptr("iii://a"), URIs: []string{}}, []string{"iii://a"}, ""},
		{"entries trimmed, blanks dropped", fetchSkillInput{URIs: []string{"  iii://a ", "", "   ", "\tiii://b\n"}}, []string{"iii://a", "iii://b"}, ""},
		{"duplicates kept", fetchSkillInput{URIs: []string{"iii://a", "iii://a"}}, []string{"iii://a", "iii://a"}, ""},
		{"nothing given", fetchSkillInput{}, nil, "Provide uri or a non-empty uris array"},
		{"blank uri", fetchSkillInput{URI: ptr("   ")}, nil, "Provide uri or a non-empty uris array"},
		{"blank uris do not fall back to uri", fetchSkillInput{URI: ptr("iii://a"), URIs: []string{" ", ""}}, nil, "Provide uri or a non-empty uris array"},
		{"other scheme", fetchSkillInput{URI: ptr(" https://example.com ")}, nil, "Invalid URI (must start with iii://): https://example.com"},
		{"every entry checked first", fetchSkillInput{URIs: []string{"iii://a", "file:///etc"}}, nil, "Invalid URI (must start with iii://): file:///etc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := fetchURIs(tt.in)
			msg, code := errText(err)
			if msg != tt.wantErr {
				t.Fatalf("error = %q, want %q", msg, tt.wantErr)
			}
			if err != nil && code != contract.CodeInvalidArgument {
				t.Errorf("code = %q, want %q", code, contract.CodeInvalidArgument)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestFetch(t *testing.T) {
	f := newFixture(t, nil)
	f.mustRegisterSkill(t, "resend", "# resend\n\nEmail provider integration.\n")
	f.mustRegisterSkill(t, "resend/email/send", "# send\n\nOutbound.\n\n\n")
	f.engine.returns("resend::health", `{"content":"# Resend health\n\nAPI: ok."}`)

	got, err := f.reg.fetch(f.ctx, fetchSkillInput{URIs: []string{"iii://resend", "iii://fn/resend/health"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "# iii://resend\n\n# resend\n\nEmail provider integration.\n\n---\n\n# iii://fn/resend/health\n\n# Resend health\n\nAPI: ok."
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	got, err = f.reg.fetch(f.ctx, fetchSkillInput{URI: ptr(" iii://resend/email/send ")})
	if err != nil {
		t.Fatal(err)
	}
	if want := "# iii://resend/email/send\n\n# send\n\nOutbound."; got != want {
		t.Errorf("single fetch = %q, want %q", got, want)
	}

	got, err = f.reg.fetch(f.ctx, fetchSkillInput{URIs: []string{"iii://skills"}})
	if err != nil || !strings.HasPrefix(got, "# iii://skills\n\n# Skills\n\n") || strings.HasSuffix(got, "\n") {
		t.Errorf("index fetch = %q, %v", got, err)
	}
}

func TestFetchFirstErrorAborts(t *testing.T) {
	f := newFixture(t, nil)
	f.mustRegisterSkill(t, "a", "# a")
	f.engine.returns("later::fn", `"x"`)
	_, err := f.reg.fetch(f.ctx, fetchSkillInput{URIs: []string{"iii://a", "iii://does-not-exist-xyz", "iii://fn/later/fn"}})
	if msg, code := errText(err); msg != "Skill not found: does-not-exist-xyz" || code != contract.CodeNotFound {
		t.Errorf("error = %q (%s)", msg, code)
	}
	if calls := f.engine.callsTo("later::fn"); len(calls) != 0 {
		t.Errorf("reads continued after the failure: %v", calls)
	}
}

// An Agent Skill links its files relatively ([pitr](references/pitr.md));
// an agent that follows the link as written reads the file's id, and a
// link to a SKILL.md reads its folder's skill. A link to nothing is
// still not found by the name the agent gave. (Ids have no '.', so no
// registered id is ever read as a link.)
func TestFetchFollowsRelativeFileLinks(t *testing.T) {
	f := newFixture(t, nil)
	f.mustRegisterSkill(t, "pg-restore", "# Restore\n\nSee [pitr](references/pitr.md).")
	f.mustRegisterSkill(t, "pg-restore/references/pitr", "# PITR\n\nReplay the WAL.")
	for _, tt := range []struct{ uri, want, wantErr string }{
		{"iii://pg-restore/references/pitr.md", "# iii://pg-restore/references/pitr.md\n\n# PITR\n\nReplay the WAL.", ""},
		{"iii://pg-restore/SKILL.md", "# iii://pg-restore/SKILL.md\n\n# Restore\n\nSee [pitr](references/pitr.md).", ""},
		{"iii://pg-restore/references/gone.md", "", "Skill not found: pg-restore/references/gone.md"},
		{"iii://SKILL.md", "", "Skill not found: SKILL.md"},
		{"iii://.md", "", "Skill not found: .md"},
	} {
		got, err := f.reg.fetch(f.ctx, fetchSkillInput{URI: ptr(tt.uri)})
		msg, code := errText(err)
		if msg != tt.wantErr || (err != nil && code != contract.CodeNotFound) {
			t.Errorf("fetch %s: error %q (%s), want %q", tt.uri, msg, code, tt.wantErr)
		}
		if got != tt.want {
			t.Errorf("fetch %s = %q, want %q", tt.uri, got, tt.want)
		}
	}
}
