package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/iii-hq/skills-go/internal/config"
	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/engine"
	"github.com/iii-hq/skills-go/internal/iii"
)

// The public development corpus (internal/search/testdata/public): Agent
// Skills of public repositories as their authors wrote them. Every
// relative link of every SKILL.md in it is followed here, as an agent
// would (docs/decisions.md D70), through skill::fetch on the bus and
// through MCP.

// corpusDirs are where the corpus's skills folder is looked for, in
// order, as internal/search's tests look for it.
func corpusDirs() []string {
	var dirs []string
	if d := os.Getenv("SKILLS_PUBLIC_CORPUS"); d != "" {
		dirs = append(dirs, d)
	}
	return append(dirs,
		filepath.Join("..", "search", "testdata", "public", "skills"),
		filepath.Join("..", "..", "..", "shared", "public-skills-corpus", "skills"))
}

// corpusLink is one relative link of a SKILL.md and what it names on
// disk, worked out here with path/filepath, apart from the rule the
// worker follows (package links).
type corpusLink struct {
	doc  string // the SKILL.md, relative to the root
	id   string // its skill's id
	link string // the link as written

	iii, skill string // the URIs the link names
	file       string // the file it names, absolute
	exists     bool   // the file is there
}

func (l corpusLink) String() string { return fmt.Sprintf("%s: %s", l.doc, l.link) }

// hasScheme matches a link that is not relative (https:, mailto:, iii:).
var hasScheme = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)

// corpusLinks are the relative links (of inline, reference and autolink
// form, as goldmark reads markdown) of every SKILL.md under root.
func corpusLinks(t *testing.T, root string) []corpusLink {
	t.Helper()
	var out []corpusLink
	parser := goldmark.DefaultParser()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Name() != "SKILL.md" {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		return ast.Walk(parser.Parse(text.NewReader(src)), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if l, ok := n.(*ast.Link); ok && entering && !hasScheme.Match(l.Destination) {
				out = append(out, named(root, rel, string(l.Destination)))
			}
			return ast.WalkContinue, nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// named works out what link, written in the SKILL.md doc, names: a
// path relative to the SKILL.md's folder, {baseDir} being that folder,
// the fragment dropped, a trailing '/' naming a folder's SKILL.md.
func named(root, doc, link string) corpusLink {
	l := corpusLink{doc: doc, id: path.Dir(doc), link: link}
	p, _, _ := strings.Cut(link, "#")
	p = strings.TrimPrefix(p, "{baseDir}/")
	target := path.Join(l.id, p) // cleaned: ./ and ../ applied
	switch {
	case p == "":
		target = doc
	case strings.HasSuffix(p, "/"):
		target += "/SKILL.md"
	}
	l.skill = "skill://" + target
	l.iii = "iii://" + strings.TrimSuffix(target, "/SKILL.md")
	l.file = filepath.Join(root, filepath.FromSlash(target))
	st, err := os.Stat(l.file)
	l.exists = err == nil && st.Mode().IsRegular()
	return l
}

// needsFiles reports whether an iii:// read of the file waits for every
// file of a skill folder to be served under its path as written: a name
// with capital letters, or one that is not markdown.
func needsFiles(l corpusLink) bool {
	name := path.Base(l.skill)
	return name != strings.ToLower(name) || !strings.HasSuffix(name, ".md")
}

// Every relative link of every SKILL.md in the corpus, served unmodified
// from one root, reaches the file it names: through skill::fetch with the
// SKILL.md as base, and over MCP through resources/read of the link
// joined to the skill's iii:// and skill:// URIs and skill__fetch with a
// base. A link to a file the corpus does not hold is not_found naming the
// URI it resolved to, everywhere.
func TestEveryCorpusLinkResolves(t *testing.T) {
	var root string
	for _, d := range corpusDirs() {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			root, _ = filepath.Abs(d)
			break
		}
	}
	if root == "" {
		t.Skipf("the public corpus is in none of %q (internal/search/testdata/public/README.md says how to lay it out)", corpusDirs())
	}
	all := corpusLinks(t, root)
	if len(all) == 0 {
		t.Fatalf("no relative links in the SKILL.md files under %s", root)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	eng, err := engine.Start(ctx, "127.0.0.1:0", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.BaseDir, cfg.Roots, cfg.RootsSet = filepath.Dir(root), []string{filepath.Base(root)}, true
	dev, err := NewDev(eng, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	serverT, clientT := mcp.NewInMemoryTransports()
	s, err := NewMCPServer(MCPOptions{Dev: dev, Transport: serverT})
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- s.Run(context.Background()) }()
	t.Cleanup(func() {
		s.Close() //nolint:errcheck // the test is over
		<-ran
	})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "links", Version: "1"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	bus := iii.New(iii.Options{URL: dev.URL(), Name: "links"})
	bus.Start()
	defer bus.Close() //nolint:errcheck // the test is over
	if err := bus.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	fetch := func(base, link string) (string, error) {
		raw, err := bus.Call(ctx, contract.FnSkillFetch, map[string]string{"base": base, "uri": link})
		var out string
		if err == nil {
			err = json.Unmarshal(raw, &out)
		}
		return out, err
	}
	for { // until the registry is on the engine and has the root
		if _, err := bus.Call(ctx, contract.FnSkillFetch, map[string]string{"uri": "iii://skills"}); err == nil || ctx.Err() != nil {
			break
		}
		time.Sleep(registryRetry) // polling for readiness; the checks below wait on nothing
	}

	failures := map[string][]string{} // why → links
	fail := func(l corpusLink, surface, format string, args ...any) {
		why := surface
		if l.exists && needsFiles(l) {
			why += " (a capital or non-markdown name: waits for every file to be served)"
		}
		failures[why] = append(failures[why], l.String()+": "+fmt.Sprintf(format, args...))
	}
	missing := map[string]bool{}
	for _, l := range all {
		if !l.exists {
			missing[l.String()+" → "+l.iii] = true
		}
		base := "iii://" + l.id
		// skill::fetch on the bus, and skill__fetch over MCP: the section
		// is headed by the URI the link names, and holds the file's text.
		text, err := fetch(base, l.link)
		checkFetch(l, text, err, func(f string, a ...any) { fail(l, "skill::fetch", f, a...) })
		out, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "skill__fetch", Arguments: map[string]any{"base": base, "uri": l.link}})
		if err == nil && out.IsError { // the registry's error, as "code: message"
			code, msg, _ := strings.Cut(out.Content[0].(*mcp.TextContent).Text, ": ")
			err = &iii.Error{Code: code, Message: msg}
		}
		text = ""
		if err == nil {
			text = out.Content[0].(*mcp.TextContent).Text
		}
		checkFetch(l, text, err, func(f string, a ...any) { fail(l, "skill__fetch", f, a...) })

		// resources/read of the link joined to the skill's URIs.
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: base + "/" + l.link})
		checkRead(l, l.iii, res, err, false, func(f string, a ...any) { fail(l, "resources/read iii://", f, a...) })
		res, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://" + l.id + "/" + l.link})
		checkRead(l, l.skill, res, err, true, func(f string, a ...any) { fail(l, "resources/read skill://", f, a...) })
	}

	var lost []string
	for m := range missing {
		lost = append(lost, m)
	}
	sort.Strings(lost)
	t.Logf("%d relative links in %s; %d name a file the corpus does not hold (each asserted not_found naming it):\n  %s",
		len(all), root, len(lost), strings.Join(lost, "\n  "))
	whys := make([]string, 0, len(failures))
	for why := range failures {
		whys = append(whys, why)
	}
	sort.Strings(whys)
	for _, why := range whys {
		t.Errorf("%s: %d links fail:\n  %s", why, len(failures[why]), strings.Join(failures[why], "\n  "))
	}
}

// checkFetch checks a skill::fetch of l's link with its skill as base.
func checkFetch(l corpusLink, text string, err error, fail func(string, ...any)) {
	if !l.exists {
		if msg, code := errorOf(err); code != contract.CodeNotFound || !strings.Contains(msg, l.iii) {
			fail("%s: %q %v; want not_found naming %s", l.iii, text, err, l.iii)
		}
		return
	}
	if err != nil {
		fail("want %s, got %v", l.iii, err)
		return
	}
	head, body, _ := strings.Cut(text, "\n\n")
	if head != "# "+l.iii || !inFile(l.file, body) {
		fail("heading %q and a text not in %s; want # %s", head, l.file, l.iii)
	}
}

// checkRead checks a resources/read of l's link joined to its skill's
// URI: the file's text (over skill:// its bytes, exactly), or not_found
// naming uri, the URI the link names.
func checkRead(l corpusLink, uri string, res *mcp.ReadResourceResult, err error, exact bool, fail func(string, ...any)) {
	if !l.exists {
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != mcp.CodeResourceNotFound || !strings.Contains(je.Message, uri) {
			fail("%v; want resource not found naming %s", err, uri)
		}
		return
	}
	if err != nil {
		fail("want %s, got %v", uri, err)
		return
	}
	got := res.Contents[0].Text
	b, _ := os.ReadFile(l.file)
	if exact && got != string(b) || !exact && !inFile(l.file, got) {
		fail("a text that is not %s's", l.file)
	}
}

// errorOf is err's message and code, as the bus or an MCP tool gives it.
func errorOf(err error) (msg, code string) {
	var ie *iii.Error
	if errors.As(err, &ie) {
		return ie.Message, ie.Code
	}
	if err != nil {
		return err.Error(), ""
	}
	return "", ""
}

// inFile reports whether text, trimmed, is in the file at p: a body is
// served without its frontmatter and trailing space.
func inFile(p, text string) bool {
	b, err := os.ReadFile(p)
	return err == nil && strings.Contains(string(b), strings.TrimSpace(text))
}
