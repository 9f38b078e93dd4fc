//go:build unix

package toolset

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/iii-hq/skills-go/internal/fsource"
	"github.com/iii-hq/skills-go/internal/tools"
)

// Classify is the one judgement of a tool skill, shared by the worker and
// the CLI: each status, and each reason an approved skill is not served.
func TestClassify(t *testing.T) {
	renamed := func(name string) string { return strings.Replace(echoSkill, "name: echo", "name: "+name, 1) }
	files := map[string]string{
		"/r/approved/SKILL.md": echoSkill,
		"/r/changed/SKILL.md":  renamed("changed"),
		"/r/pending/SKILL.md":  renamed("pending"),
		"/r/invalid/SKILL.md":  strings.Replace(echoSkill, "| loud | boolean |", "| loud | map |", 1),
		"/r/engine/SKILL.md":   renamed("engine"),
		"/r/twin/SKILL.md":     echoSkill, // its function echo::say is approved's
		"/r/plain/SKILL.md":    "---\nname: plain\ndescription: No tools.\n---\n# Plain\n",
		"/r/approved/notes.md": echoSkill, // not a SKILL.md
	}
	var skills []fsource.Skill
	for _, id := range []string{"approved", "changed", "engine", "gone", "invalid", "pending", "plain", "twin", "approved/notes"} {
		path := "/r/" + id + "/SKILL.md"
		if id == "approved/notes" {
			path = "/r/approved/notes.md"
		}
		skills = append(skills, fsource.Skill{ID: id, Path: path})
	}
	read := func(path string) ([]byte, error) {
		if s, ok := files[path]; ok {
			return []byte(s), nil
		}
		return nil, fs.ErrNotExist // "gone": deleted since it was listed
	}
	lock := tools.Lock{Approved: map[string]tools.Approval{}}
	for _, id := range []string{"approved", "engine", "twin"} {
		lock.Approved["/r/"+id+"/SKILL.md"] = tools.Approval{SHA256: tools.Sum([]byte(files["/r/"+id+"/SKILL.md"]))}
	}
	lock.Approved["/r/changed/SKILL.md"] = tools.Approval{SHA256: tools.Sum([]byte("an older version"))}

	type row struct{ ID, Status, Reason, Serve string }
	var got []row
	for _, e := range Classify(skills, read, lock) {
		var serve []string
		for _, tl := range e.serve {
			serve = append(serve, e.Skill.Name+"::"+tl.Name)
		}
		reason := e.Reason
		if e.Refused {
			reason = "refused: " + reason
		}
		got = append(got, row{e.ID, e.Status, reason, strings.Join(serve, ",")})
	}
	want := []row{
		{"approved", tools.StatusApproved, "", "echo::say"},
		{"changed", tools.StatusChanged, "", ""},
		{"engine", tools.StatusApproved, `refused: the skill name "engine" would put its tools in the reserved namespace engine::`, ""},
		{"invalid", tools.StatusInvalid, `refused: ` + mustParseErr(t, files["/r/invalid/SKILL.md"]), ""},
		{"pending", tools.StatusPending, "", ""},
		{"twin", tools.StatusApproved, "function echo::say is already served by another skill", ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Classify (-want +got):\n%s", diff)
	}
}

// mustParseErr is the parse error of a SKILL.md whose tools do not parse.
func mustParseErr(t *testing.T, raw string) string {
	t.Helper()
	_, _, err := tools.Parse([]byte(raw))
	if err == nil {
		t.Fatal("the invalid skill parses")
	}
	return err.Error()
}
