package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/fsource"
)

// These tests run the registry over real temporary directories through
// package fsource, with the glob layout of the Rust BDD harness.

// fsMTime is the modification time given to every fixture file.
var fsMTime = time.Date(2026, 1, 2, 3, 4, 5, 600000000, time.UTC)

const fsMTimeText = "2026-01-02T03:04:05.600000000+00:00"

// fsFixture writes files (slash paths relative to a temp dir) and returns
// a fixture whose overlay globs fs-skills/**/*.md and fs-prompts/**/*.md.
func fsFixture(t *testing.T, files map[string]string) (*fixture, string) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		writeFile(t, filepath.Join(dir, filepath.FromSlash(name)), content)
	}
	return newFixture(t, fsource.New(dir, []string{"fs-skills/**/*.md"}, []string{"fs-prompts/**/*.md"})), dir
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fsMTime, fsMTime); err != nil {
		t.Fatal(err)
	}
}

func TestFSSkillsList(t *testing.T) {
	files := map[string]string{
		"fs-skills/alpha.md":                   "# Alpha\n\nFirst.\n",
		"fs-skills/beta.md":                    "---\ntitle: x\n---\n# Beta\n",
		"fs-skills/team-a/playbook.md":         "# Team A playbook\n\nTop-level body.\n",
		"fs-skills/team-a/meetings/standup.md": "standup",
		"fs-skills/Bad-Name.md":                "skipped: uppercase",
		"fs-skills/notes.txt":                  "not matched",
		"fs-skills/dual.md":                    "# from fs",
	}
	f, _ := fsFixture(t, files)
	f.mustRegisterSkill(t, "dual", "# from state")
	f.mustRegisterSkill(t, "gamma", "g")
	got, err := f.reg.listSkills(f.ctx, listSkillsInput{})
	if err != nil {
		t.Fatal(err)
	}
	at := f.fixedTimestamp
	// fs bytes are the file size, frontmatter included.
	// tokens are bytes/4 rounded up; sha256 is of the body for state, of
	// the whole file for fs (D41).
	fsRow := func(id, content string) skillEntry {
		return skillEntry{ID: id, Bytes: int64(len(content)), RegisteredAt: fsMTimeText, Origin: "fs", Tokens: int64(len(content)+3) / 4, SHA256: hexSHA(content)}
	}
	stateRow := func(id, body string) skillEntry {
		return skillEntry{ID: id, Bytes: int64(len(body)), RegisteredAt: at, Origin: "state", Tokens: int64(len(body)+3) / 4, SHA256: hexSHA(body)}
	}
	want := listSkillsOutput{Skills: []skillEntry{
		fsRow("alpha", "# Alpha\n\nFirst.\n"),
		fsRow("beta", "---\ntitle: x\n---\n# Beta\n"),
		stateRow("dual", "# from state"),
		stateRow("gamma", "g"),
		fsRow("team-a/meetings/standup", files["fs-skills/team-a/meetings/standup.md"]),
		fsRow("team-a/playbook", files["fs-skills/team-a/playbook.md"]),
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("skills::list (-want +got):\n%s", diff)
	}
}

func TestFSSkillRead(t *testing.T) {
	f, dir := fsFixture(t, map[string]string{
		"fs-skills/lookup.md": "---\nx: 1\n---\n# Lookup\n\nOld text.\n",
		"fs-skills/dual.md":   "# from fs",
		"fs-skills/empty.md":  "---\na: b\n---\n\n\n",
	})
	read := func(uri string) (string, error) {
		out, err := f.reg.resourcesRead(f.ctx, readIn(uri))
		if err != nil {
			return "", err
		}
		return out.Contents[0].MimeType + " " + out.Contents[0].Text, nil
	}
	if got, err := read("iii://lookup"); err != nil || got != "text/markdown # Lookup\n\nOld text.\n" {
		t.Errorf("first read = %q, %v", got, err)
	}
	writeFile(t, filepath.Join(dir, "fs-skills", "lookup.md"), "# Lookup\n\nNew text.\n")
	if got, err := read("iii://lookup"); err != nil || got != "text/markdown # Lookup\n\nNew text.\n" {
		t.Errorf("read after edit = %q, %v", got, err)
	}

	f.mustRegisterSkill(t, "dual", "# from state")
	if got, err := read("iii://dual"); err != nil || got != "text/markdown # from state" {
		t.Errorf("state must shadow fs: %q, %v", got, err)
	}

	_, err := read("iii://empty")
	wantErr := "file " + filepath.Join(dir, "fs-skills", "empty.md") + " has empty body"
	if msg, code := errText(err); msg != wantErr || code != contract.CodeUnavailable {
		t.Errorf("empty body error = %q (%s), want %q", msg, code, wantErr)
	}

	if got, err := f.reg.unregisterSkill(f.ctx, unregisterSkillInput{ID: "lookup"}); err != nil || got.Removed {
		t.Errorf("unregistering an fs-only id = %+v, %v; want removed false", got, err)
	}
	if _, err := read("iii://lookup"); err != nil {
		t.Errorf("fs entry must survive an unregister: %v", err)
	}
	if ev := f.skillEvents.fired(); len(ev) != 1 { // only the register of dual
		t.Errorf("events = %v", ev)
	}
}

func TestFSIndexAndResourcesList(t *testing.T) {
	f, _ := fsFixture(t, map[string]string{
		"fs-skills/tree.md":      "# Tree\n\nRoot of the tree.\n",
		"fs-skills/tree/leaf.md": "# Leaf\n\nA leaf.\n",
		"fs-skills/dual.md":      "# Dual from fs\n",
		"fs-skills/broken.md":    "\n\n",
	})
	f.mustRegisterSkill(t, "dual", "# Dual\n\nFrom state.")
	want := wantIntro +
		"- [`dual`](iii://dual) — Dual — From state.\n" +
		"\n" + wantCustom +
		"- [`broken`](iii://broken) — broken\n" +
		"- [`tree`](iii://tree) — Tree — Root of the tree.\n" +
		"  - [`tree/leaf`](iii://tree/leaf) — Leaf — A leaf.\n"
	if diff := cmp.Diff(want, f.reg.index(f.ctx)); diff != "" {
		t.Errorf("index (-want +got):\n%s", diff)
	}

	got, err := f.reg.resourcesList(f.ctx, listInput{})
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range got.Resources {
		uris = append(uris, r.URI+" "+r.Name)
	}
	wantURIs := []string{"iii://skills skills", "iii://dual Dual", "iii://broken broken", "iii://tree Tree", "iii://tree/leaf Leaf"}
	if diff := cmp.Diff(wantURIs, uris); diff != "" {
		t.Errorf("resources (-want +got):\n%s", diff)
	}
}

func TestFSPrompts(t *testing.T) {
	f, _ := fsFixture(t, map[string]string{
		"fs-prompts/open-pr.md":    "---\nname: open-pr\ndescription: Create a GitHub pull request.\n---\nOpen a PR for the current branch.\n",
		"fs-prompts/sub/static.md": "---\ndescription: A static prompt\narguments: [{name: kind, values: [bug, docs]}]\n---\nStatic body\n\n",
		"fs-prompts/no-fm.md":      "no frontmatter, skipped",
		"fs-prompts/dual.md":       "---\ndescription: fs dual\n---\nfs body\n",
	})
	if _, err := f.reg.registerPrompt(f.ctx, registerPromptInput{Name: "dual", Description: "state dual", FunctionID: "w::dual"}); err != nil {
		t.Fatal(err)
	}

	list, err := f.reg.listPrompts(f.ctx, emptyInput{})
	if err != nil {
		t.Fatal(err)
	}
	openPR := "---\nname: open-pr\ndescription: Create a GitHub pull request.\n---\nOpen a PR for the current branch.\n"
	static := "---\ndescription: A static prompt\narguments: [{name: kind, values: [bug, docs]}]\n---\nStatic body\n\n"
	n := func(v int) *int64 { x := int64(v); return &x }
	wantList := []promptEntry{
		{Name: "dual", FunctionID: "w::dual", RegisteredAt: f.fixedTimestamp, Origin: "state", SHA256: list.Prompts[0].SHA256},
		{Name: "open-pr", RegisteredAt: fsMTimeText, Origin: "fs", Bytes: n(len(openPR)), Tokens: n((len(openPR) + 3) / 4), SHA256: hexSHA(openPR)},
		{Name: "static", RegisteredAt: fsMTimeText, Origin: "fs", Bytes: n(len(static)), Tokens: n((len(static) + 3) / 4), SHA256: hexSHA(static)},
	}
	if len(list.Prompts[0].SHA256) != 64 {
		t.Errorf("state prompt digest %q", list.Prompts[0].SHA256)
	}
	if diff := cmp.Diff(wantList, list.Prompts); diff != "" {
		t.Errorf("prompts::list (-want +got):\n%s", diff)
	}

	mcp, err := f.reg.mcpListPrompts(f.ctx, listInput{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(mcp)
	// A prompt file declares no arguments, so no values either: 0.2 lists
	// it with arguments: [] whatever its frontmatter says (D45).
	wantMCP := `{"prompts":[{"name":"dual","description":"state dual","arguments":[]},{"name":"open-pr","description":"Create a GitHub pull request.","arguments":[]},{"name":"static","description":"A static prompt","arguments":[]}]}`
	if string(b) != wantMCP {
		t.Errorf("mcp-list\n got %s\nwant %s", b, wantMCP)
	}

	got, err := f.reg.getPrompt(f.ctx, promptGetInput{Name: "static", Arguments: json.RawMessage(`{"ignored":true}`)})
	if err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(got)
	want := `{"description":"A static prompt","messages":[{"role":"user","content":{"type":"text","text":"Static body\n\n"}}]}`
	if string(b) != want {
		t.Errorf("mcp-get\n got %s\nwant %s", b, want)
	}

	f.engine.returns("w::dual", `"from the handler"`)
	got, err = f.reg.getPrompt(f.ctx, promptGetInput{Name: "dual"})
	if err != nil || !strings.Contains(string(got.Messages), "from the handler") || got.Description != "state dual" {
		t.Errorf("state must shadow the fs prompt: %+v, %v", got, err)
	}
	if _, err := f.reg.getPrompt(f.ctx, promptGetInput{Name: "no-fm"}); err == nil {
		t.Error("a prompt without frontmatter must not load")
	}
}

func TestNilOverlayIsNoOverlay(t *testing.T) {
	f := newFixture(t, nil)
	files := f.reg.view.Files(f.ctx)
	if files.Skills != nil || files.SkillSkips != nil {
		t.Errorf("skill files = %v, %v", files.Skills, files.SkillSkips)
	}
	if files.Prompts != nil || files.PromptSkips != nil {
		t.Errorf("prompt files = %v, %v", files.Prompts, files.PromptSkips)
	}
	if _, err := f.reg.getPrompt(f.ctx, promptGetInput{Name: "x"}); err == nil {
		t.Error("want not found")
	}
}

func hexSHA(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
