package registry

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/fsource"
	"github.com/iii-hq/skills-go/internal/ids"
)

// Every file of a root's skill folder reads by the id ids.FileID gives it
// (D69), through resources-read and skill::fetch, with its media type; a
// skipped file's path says why it is not served; an id that could be
// registered keeps 0.2's bare answer.
func TestRootFilesReadByTheirPath(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"skills/pdf-tool/SKILL.md":                    "---\nname: pdf-tool\ndescription: Fill PDF forms.\n---\n# PDF\n\nSee [the API](references/API_REFERENCE.md).\n",
		"skills/pdf-tool/references/API_REFERENCE.md": "# API reference\n\nCall fill().\n",
		"skills/pdf-tool/references/forms.md":         "# Forms\n",
		"skills/pdf-tool/LICENSE.txt":                 "Apache 2.0\n",
		"skills/pdf-tool/assets/template.json":        "{\"a\": 1}\n",
		"skills/pdf-tool/references/huge.md":          strings.Repeat("x", fsource.MaxBodyBytes+1),
	} {
		writeFile(t, filepath.Join(dir, filepath.FromSlash(name)), content)
	}
	f := newFixture(t, fsource.New(dir, nil, nil, fsource.Roots("skills")))
	for uri, want := range map[string]string{
		"iii://pdf-tool/references/API_REFERENCE.md": "text/markdown # API reference\n\nCall fill().\n",
		"iii://pdf-tool/references/forms":            "text/markdown # Forms\n",
		"iii://pdf-tool/references/forms.md":         "text/markdown # Forms\n",
		"iii://pdf-tool/SKILL.md":                    "text/markdown # PDF\n\nSee [the API](references/API_REFERENCE.md).\n",
		"iii://pdf-tool/LICENSE.txt":                 "text/plain; charset=utf-8 Apache 2.0\n",
		"iii://pdf-tool/assets/template.json":        "application/json {\"a\": 1}\n",
	} {
		out, err := f.reg.resourcesRead(f.ctx, readIn(uri))
		if err != nil {
			t.Errorf("read %s: %v", uri, err)
			continue
		}
		if got := out.Contents[0].MimeType + " " + out.Contents[0].Text; got != want {
			t.Errorf("read %s = %q, want %q", uri, got, want)
		}
	}
	doc, err := f.reg.fetch(f.ctx, fetchSkillInput{URI: ptr("iii://pdf-tool/references/API_REFERENCE.md")})
	if err != nil || doc != "# iii://pdf-tool/references/API_REFERENCE.md\n\n# API reference\n\nCall fill()." {
		t.Errorf("skill::fetch = %q, %v", doc, err)
	}

	list, err := f.reg.allResources(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	mimes := map[string]string{}
	for _, r := range list.Resources {
		mimes[r.URI] = r.MimeType
	}
	for uri, want := range map[string]string{
		"iii://pdf-tool/references/API_REFERENCE.md": contract.MIMEMarkdown,
		"iii://pdf-tool/LICENSE.txt":                 "text/plain; charset=utf-8",
		"iii://pdf-tool/assets/template.json":        "application/json",
	} {
		if mimes[uri] != want {
			t.Errorf("resources-list %s: mimeType %q, want %q (listed: %v)", uri, mimes[uri], want, mimes)
		}
	}
	if _, listed := mimes["iii://pdf-tool/references/huge.md"]; listed {
		t.Error("the file over the body limit is listed")
	}

	_, err = f.reg.resourcesRead(f.ctx, readIn("iii://pdf-tool/references/huge.md"))
	msg, code := errText(err)
	if code != contract.CodeNotFound || !strings.HasPrefix(msg, "Skill not found: pdf-tool/references/huge.md (the file ") ||
		!strings.Contains(msg, "huge.md is not served: too large to serve (262145 bytes; max 262144") {
		t.Errorf("read of the oversized file: %s %q", code, msg)
	}
	for _, key := range []string{"pdf-tool/references/huge", "pdf-tool/nothing.md", "Nothing/At/All"} {
		_, err = f.reg.resourcesRead(f.ctx, readIn("iii://"+key))
		if msg, code := errText(err); code != contract.CodeNotFound || msg != "Skill not found: "+key {
			t.Errorf("read of %s: %s %q; want 0.2's bare not found", key, code, msg)
		}
	}
}

// Path tricks in a root file's id read nothing outside the roots (issue
// 29's bad input, D69): a key is looked up among the listed ids, never
// joined to a folder, so a '..', a percent-encoded separator, a NUL or an
// overlong segment is not_found (or, once links are resolved, a '..'
// beyond the registry invalid_argument), naming the key.
func TestRootFileIDPathTricksAreNotFound(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "skills", "pdf-tool", "SKILL.md"), "---\nname: pdf-tool\ndescription: d\n---\n# PDF\n")
	writeFile(t, filepath.Join(dir, "skills", "pdf-tool", "references", "API.md"), "# API\n")
	writeFile(t, filepath.Join(dir, "secret.md"), "# Secret\n")
	f := newFixture(t, fsource.New(dir, nil, nil, fsource.Roots("skills")))
	for _, key := range []string{
		"pdf-tool/../../secret.md",
		"pdf-tool/references/../../../secret.md",
		"pdf-tool/..%2F..%2Fsecret.md",
		"pdf-tool%2Freferences%2FAPI.md",
		"pdf-tool/references/API.md\x00",
		"pdf-tool/" + strings.Repeat("x", 300) + ".md",
		"pdf-tool/references/API.MD",
	} {
		_, err := f.reg.resourcesRead(f.ctx, readIn("iii://"+key))
		msg, code := errText(err)
		if (code != contract.CodeNotFound && code != contract.CodeInvalidArgument) || !strings.Contains(msg, ids.Clip(strings.Split(key, "\x00")[0])) {
			t.Errorf("read of iii://%q: %s %q; want not_found or invalid_argument naming it", key, code, msg)
		}
		if strings.Contains(msg, "Secret") {
			t.Errorf("read of iii://%q served a file outside the roots: %q", key, msg)
		}
	}
}
