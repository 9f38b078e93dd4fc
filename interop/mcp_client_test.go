package interop

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/iii"
)

// mcpSeen is what mcp_client.mjs reports.
type mcpSeen struct {
	Server struct {
		Name string `json:"name"`
	} `json:"server"`
	Capabilities  map[string]json.RawMessage `json:"capabilities"`
	Resources     []string                   `json:"resources"`
	Pages         int                        `json:"pages"`
	Updated       []string                   `json:"updated"`
	Templates     []string                   `json:"templates"`
	Read          string                     `json:"read"`
	Unknown       rpcError                   `json:"unknown"`
	OtherScheme   rpcError                   `json:"otherScheme"`
	UnknownPrompt rpcError                   `json:"unknownPrompt"`
	URIsType      json.RawMessage            `json:"urisType"`
	Completion    struct {
		Values []string `json:"values"`
		Total  int      `json:"total"`
	} `json:"completion"`
	Tools []struct {
		Name       string   `json:"name"`
		Properties []string `json:"properties"`
	} `json:"tools"`
	Search struct {
		Results []struct {
			ID string `json:"id"`
		} `json:"results"`
	} `json:"search"`
	Fetch     string `json:"fetch"`
	BadSearch struct {
		IsError bool   `json:"isError"`
		Text    string `json:"text"`
	} `json:"badSearch"`
	Prompts    []string          `json:"prompts"`
	Prompt     []json.RawMessage `json:"prompt"`
	SkillsList struct {
		ResultType string `json:"resultType"`
		Skills     []struct {
			URI         string            `json:"uri"`
			Frontmatter map[string]string `json:"frontmatter"`
			Resources   []struct {
				URI string `json:"uri"`
			} `json:"resources"`
		} `json:"skills"`
	} `json:"skillsList"`
	SkillFiles []struct {
		URI      string `json:"uri"`
		Verified bool   `json:"verified"`
		Blob     bool   `json:"blob"`
	} `json:"skillFiles"`
	SkillGet struct {
		Skill struct {
			URI string `json:"uri"`
		} `json:"skill"`
	} `json:"skillGet"`
	Directory []struct {
		URI      string `json:"uri"`
		Name     string `json:"name"`
		MimeType string `json:"mimeType"`
	} `json:"directory"`
	SkillGetUnknown struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"skillGetUnknown"`
	Showcase []struct {
		Role    string         `json:"role"`
		Content map[string]any `json:"content"`
	} `json:"showcase"`
	ShowcaseCompletion struct {
		Values  []string `json:"values"`
		Total   int      `json:"total"`
		HasMore bool     `json:"hasMore"`
	} `json:"showcaseCompletion"`
	ListChanged int      `json:"listChanged"`
	AfterChange []string `json:"afterChange"`
}

// rpcError is a JSON-RPC error as the TypeScript client reports it.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// mcpFixture writes an Agent Skills root and a prompt, and a config that
// serves them, and builds the skills binary.
func mcpFixture(t *testing.T) (bin, config, root string) {
	t.Helper()
	dir := t.TempDir()
	root = filepath.Join(dir, "agents")
	for path, content := range map[string]string{
		filepath.Join(root, "pdf-forms", "SKILL.md"):                "---\nname: pdf-forms\ndescription: Fill in PDF forms field by field.\n---\n# PDF forms\n\nList the fields, then fill them.\n",
		filepath.Join(root, "pdf-forms", "references", "fields.md"): "# Field types\n\nText, check box, choice.\n",
		filepath.Join(root, "pdf-forms", "assets", "mark.bin"):      "\x89PNG\r\n\x1a\n\x00\xff",
		filepath.Join(dir, "prompts", "review.md"):                  "---\ndescription: Review a change.\n---\nReview the change for correctness first.\n",
		filepath.Join(dir, "config.yaml"):                           "roots: [agents]\nprompts: [prompts/*.md]\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return skillsBinary(t), filepath.Join(dir, "config.yaml"), root
}

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// skillsBinary builds the skills binary once per test run.
func skillsBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "skills-interop-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "skills")
		if out, err := exec.Command("go", "build", "-o", builtBin, "../cmd/skills").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

// runMCPClient runs mcp_client.mjs with args and decodes what it saw.
func runMCPClient(t *testing.T, args ...string) mcpSeen {
	t.Helper()
	var seen mcpSeen
	runClientScript(t, "mcp_client.mjs", &seen, args...)
	return seen
}

// runClientScript runs script, a client on the TypeScript MCP SDK, with
// args, and decodes the JSON object it prints into seen.
func runClientScript(t *testing.T, script string, seen any, args ...string) {
	t.Helper()
	node := requireNode(t)
	if _, err := os.Stat(filepath.Join("node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Fatalf("@modelcontextprotocol/sdk is not installed in interop/node_modules: %v; %s", err, installHint)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{script}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\nstderr:\n%s", script, args, err, stderr.String())
	}
	if err := json.Unmarshal(out, seen); err != nil {
		t.Fatalf("%s printed %q: %v", script, out, err)
	}
}

// checkSeen checks what the TypeScript client saw; every result already
// passed the SDK's own schema checks, or the script would have failed.
func checkSeen(t *testing.T, seen mcpSeen) {
	t.Helper()
	if seen.Server.Name != "skills" {
		t.Errorf("server = %+v", seen.Server)
	}
	for _, c := range []string{"resources", "prompts", "tools"} {
		if _, ok := seen.Capabilities[c]; !ok {
			t.Errorf("no %s capability in %v", c, seen.Capabilities)
		}
	}
	if ext := string(seen.Capabilities["extensions"]); !strings.Contains(ext, `"io.modelcontextprotocol/skills":{"directoryRead":true}`) {
		t.Errorf("extensions capability = %s, want the MCP Skills extension", ext)
	}
	if !slices.Contains(seen.Resources, "iii://skills") || !slices.Contains(seen.Resources, "iii://pdf-forms") {
		t.Errorf("resources = %v", seen.Resources)
	}
	if !slices.Contains(seen.Templates, "iii://{+path}") {
		t.Errorf("templates = %v", seen.Templates)
	}
	if !strings.HasPrefix(seen.Read, "# PDF forms") || !strings.Contains(seen.Fetch, "List the fields") {
		t.Errorf("read %q, fetch %q", seen.Read, seen.Fetch)
	}
	if seen.Unknown.Code != -32602 || !strings.Contains(seen.Unknown.Message, "resource iii://no-such-skill not found") {
		t.Errorf("unknown resource = %+v, want the resource-not-found error naming the URI", seen.Unknown)
	}
	if seen.OtherScheme.Code != -32602 || !strings.Contains(seen.OtherScheme.Message, "https://example.com/SKILL.md") ||
		!strings.Contains(seen.OtherScheme.Message, "only iii:// and skill:// URIs are served") {
		t.Errorf("a read of an https:// URI = %+v, want -32602 naming the URI and the schemes served", seen.OtherScheme)
	}
	if seen.UnknownPrompt.Code != -32602 || !strings.Contains(seen.UnknownPrompt.Message, `unknown prompt "no-such-prompt"`) {
		t.Errorf("prompts/get of an unknown prompt = %+v, want -32602 naming it", seen.UnknownPrompt)
	}
	if string(seen.URIsType) != `"array"` {
		t.Errorf("skill__fetch's uris is typed %s, want \"array\"", seen.URIsType)
	}
	var ids []string // every listed skill whose id starts with "pdf"
	for _, uri := range seen.Resources {
		if id := strings.TrimPrefix(uri, "iii://"); strings.HasPrefix(id, "pdf") {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	if !slices.Contains(ids, "pdf-forms") || !slices.Equal(seen.Completion.Values, ids) || seen.Completion.Total != len(ids) {
		t.Errorf("completion of iii://{+path} from \"pdf\" = %+v, want %v", seen.Completion, ids)
	}
	tools := map[string][]string{}
	for _, tl := range seen.Tools {
		tools[tl.Name] = tl.Properties
	}
	if !slices.Contains(tools["skill__search"], "query") || !slices.Contains(tools["skill__fetch"], "uris") {
		t.Errorf("tools = %v", tools)
	}
	if len(seen.Search.Results) == 0 || seen.Search.Results[0].ID != "pdf-forms" {
		t.Errorf("search = %+v", seen.Search)
	}
	if !seen.BadSearch.IsError || !strings.Contains(seen.BadSearch.Text, "at least one character that is not a space") {
		t.Errorf("a blank search = %+v", seen.BadSearch)
	}
	if !slices.Contains(seen.Prompts, "review") || len(seen.Prompt) != 1 || !strings.Contains(string(seen.Prompt[0]), "Review the change") {
		t.Errorf("prompts %v, prompt %s", seen.Prompts, seen.Prompt)
	}
	if seen.SkillsList.ResultType != "complete" || len(seen.SkillsList.Skills) != 1 {
		t.Fatalf("skills/list = %+v", seen.SkillsList)
	}
	if sk := seen.SkillsList.Skills[0]; sk.URI != "skill://pdf-forms/SKILL.md" || sk.Frontmatter["name"] != "pdf-forms" ||
		sk.Frontmatter["description"] != "Fill in PDF forms field by field." || len(sk.Resources) != 3 {
		t.Errorf("skills/list entry = %+v", sk)
	}
	var files []string
	for _, f := range seen.SkillFiles {
		files = append(files, f.URI)
		if !f.Verified {
			t.Errorf("%s: the bytes read do not have the listed digest and size", f.URI)
		}
		if f.Blob != strings.HasSuffix(f.URI, ".bin") {
			t.Errorf("%s: read as blob %v", f.URI, f.Blob)
		}
	}
	if want := []string{"skill://pdf-forms/SKILL.md", "skill://pdf-forms/assets/mark.bin", "skill://pdf-forms/references/fields.md"}; !slices.Equal(files, want) {
		t.Errorf("skill files read = %v, want %v", files, want)
	}
	var dir []string
	for _, e := range seen.Directory {
		dir = append(dir, e.Name+" "+e.MimeType)
	}
	if want := []string{"SKILL.md text/markdown", "assets inode/directory", "references inode/directory"}; !slices.Equal(dir, want) {
		t.Errorf("resources/directory/read skill://pdf-forms = %v, want %v", dir, want)
	}
	if seen.SkillGet.Skill.URI != "skill://pdf-forms/SKILL.md" {
		t.Errorf("skills/get = %+v", seen.SkillGet)
	}
	if seen.SkillGetUnknown.Code != -32602 || !strings.Contains(seen.SkillGetUnknown.Message, "Skill not found: no-such-skill") {
		t.Errorf("skills/get of an unknown skill = %+v, want -32602", seen.SkillGetUnknown)
	}
	if !slices.Contains(seen.Updated, "iii://pdf-forms") {
		t.Errorf("resources/updated = %v, want one for the edited iii://pdf-forms", seen.Updated)
	}
	if seen.ListChanged < 1 || !slices.Contains(seen.AfterChange, "iii://added-later") {
		t.Errorf("after a folder was added: %d list_changed, resources %v", seen.ListChanged, seen.AfterChange)
	}
}

// The official TypeScript client drives `skills mcp --dev` over stdio.
func TestMCPClientOverStdio(t *testing.T) {
	bin, config, root := mcpFixture(t)
	seen := runMCPClient(t, "stdio", bin, config, root)
	checkSeen(t, seen)
	// --page-size 2: the resources came in pages, joined by cursors.
	if want := (len(seen.Resources) + 1) / 2; seen.Pages != want || seen.Pages < 2 {
		t.Errorf("%d resources in %d pages, want %d pages of 2", len(seen.Resources), seen.Pages, want)
	}
}

// The official TypeScript client drives `skills mcp --dev --http`.
func TestMCPClientOverHTTP(t *testing.T) {
	bin, config, root := mcpFixture(t)
	url, engineURL := startMCPHTTP(t, bin, "--config", config)
	showcasePrompt(t, engineURL)
	seen := runMCPClient(t, "http", url, root, "showcase")
	checkSeen(t, seen)
	types := map[string]string{}
	for _, m := range seen.Showcase {
		types[m.Content["type"].(string)] = m.Role
	}
	for _, want := range []string{"text", "image", "audio", "resource", "resource_link"} {
		if _, ok := types[want]; !ok {
			t.Errorf("the showcase prompt's messages lack a %s content: %+v", want, seen.Showcase)
		}
	}
	if len(seen.Showcase) == 0 || seen.Showcase[0].Content["text"] != "Fill the forms form." {
		t.Errorf("showcase messages = %+v", seen.Showcase)
	}
	if c := seen.ShowcaseCompletion; !slices.Equal(c.Values, []string{"forms", "Fields"}) || c.Total != 2 || c.HasMore {
		t.Errorf("completion of showcase's topic from \"f\" = %+v, want its declared values forms, Fields", c)
	}
}

// startMCPHTTP runs skills mcp --dev --http 127.0.0.1:0 with args, and
// returns the MCP endpoint and the in-process engine's URL it prints; the
// process is interrupted at the test's end.
func startMCPHTTP(t *testing.T, bin string, args ...string) (url, engineURL string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"mcp", "--dev", "--http", "127.0.0.1:0", "--log-level", "info"}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() })
	lines := bufio.NewScanner(stderr)
	urlRe, wsRe := regexp.MustCompile(`http://127\.0\.0\.1:\d+/mcp`), regexp.MustCompile(`ws://127\.0\.0\.1:\d+`)
	for lines.Scan() {
		if u := wsRe.FindString(lines.Text()); u != "" && engineURL == "" {
			engineURL = u
		}
		if url = urlRe.FindString(lines.Text()); url != "" {
			break
		}
	}
	if url == "" || engineURL == "" {
		t.Fatal("skills mcp --http never printed its addresses")
	}
	go func() {
		for lines.Scan() {
		}
	}()
	return url, engineURL
}

// showcasePrompt registers, through the engine at url, the prompt
// "showcase", whose handler returns a message of every MCP content type
// and whose argument declares values to complete.
func showcasePrompt(t *testing.T, url string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := iii.New(iii.Options{URL: url, Name: "showcase"})
	c.RegisterFunction(iii.Function{ID: "interop::showcase", Handler: func(_ context.Context, req iii.Request) (any, error) {
		var args struct{ Topic string }
		_ = json.Unmarshal(req.Data, &args)
		png := base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\n"))
		return map[string]any{"messages": []any{
			map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "Fill the " + args.Topic + " form."}},
			map[string]any{"role": "assistant", "content": map[string]any{"type": "image", "data": png, "mimeType": "image/png"}},
			map[string]any{"role": "user", "content": map[string]any{"type": "audio", "data": png, "mimeType": "audio/wav"}},
			map[string]any{"role": "user", "content": map[string]any{"type": "resource", "resource": map[string]any{"uri": "iii://pdf-forms", "mimeType": "text/markdown", "text": "# PDF forms"}}},
			map[string]any{"role": "user", "content": map[string]any{"type": "resource_link", "uri": "iii://pdf-forms", "name": "pdf-forms"}},
		}}, nil
	}})
	c.Start()
	t.Cleanup(func() { c.Close() })
	if err := c.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Call(ctx, "prompts::register", map[string]any{"name": "showcase", "description": "Every content type.",
		"function_id": "interop::showcase", "arguments": []any{map[string]any{"name": "topic", "required": true, "values": []string{"forms", "tables", "Fields"}}}}); err != nil {
		t.Fatal(err)
	}
}
