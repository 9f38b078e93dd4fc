package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A misspelt key is ignored, as 0.2 ignored every unknown key, but listed
// with its line and the nearest known key, so the worker can warn and
// skills doctor can report it.
func TestUnknownKeys(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"a misspelt top-level key", "skils: [docs/*.md]\n",
			[]string{"line 1: unknown key `skils` is ignored; did you mean `skills`?"}},
		{"a misspelt nested key", "tools: {enable: true}\n",
			[]string{"line 1: unknown key `tools.enable` is ignored; did you mean `tools.enabled`?"}},
		{"a misspelt scope", "scopes:\n  skills: s\n  prompt: p\n",
			[]string{"line 3: unknown key `scopes.prompt` is ignored; did you mean `scopes.prompts`?"}},
		{"nothing near", "state_timeout_ms: 5\nworkers: [a]\n",
			[]string{"line 2: unknown key `workers` is ignored; the keys known there are " + strings.Join(topKeys, ", ")}},
		{"nothing near, nested", "tools:\n  shell: bash\n",
			[]string{"line 2: unknown key `tools.shell` is ignored; the keys known there are tools.enabled, tools.workdir, tools.env_allow, tools.max_concurrent"}},
		{"several, in file order", "prompt: []\nscopes: {skils: s}\n",
			[]string{"line 1: unknown key `prompt` is ignored; did you mean `prompts`?", "line 2: unknown key `scopes.skils` is ignored; did you mean `scopes.skills`?"}},
		{"a misspelt search key", "search:\n  embeder: embeddings::embed\n",
			[]string{"line 2: unknown key `search.embeder` is ignored; did you mean `search.embedder`?"}},
		{"a merge key is not a key", "base: &b {skills: s}\nscopes:\n  <<: *b\n",
			[]string{"line 1: unknown key `base` is ignored; the keys known there are " + strings.Join(topKeys, ", ")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse([]byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, u := range cfg.UnknownKeys {
				got = append(got, u.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("unknown keys (-want +got):\n%s", diff)
			}
		})
	}
	// The misspelt setting does not apply; the rest of the file does.
	cfg, _ := Parse([]byte("skils: [docs/*.md]\nprompts: [p/*.md]\n"))
	if len(cfg.Skills) != 0 || !cmp.Equal(cfg.Prompts, []string{"p/*.md"}) {
		t.Errorf("skills %v, prompts %v; want none and [p/*.md]", cfg.Skills, cfg.Prompts)
	}
}

// Every key a 0.2 config may hold (docs/reference.md) and every key of the
// shipped config.yaml is known: neither warns.
func TestKnownConfigsHaveNoUnknownKeys(t *testing.T) {
	upstream := "scopes:\n  skills: s\n  prompts: p\nstate_timeout_ms: 5000\nskills: [a/*.md]\nprompts: [b/*.md]\nbase_dir: /srv\n"
	shipped, err := os.ReadFile(filepath.Join("..", "..", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	every := "allow_paths: []\nroots: []\ntools: {enabled: true, workdir: w, env_allow: [GIT_*], max_concurrent: 2}\npage_size: 0\n" +
		"index_max_tokens: 0\nmax_files: 10\nmax_response_bytes: 2048\nmax_frame_bytes: 1048576\ncache_bytes: 0\nfs_poll_ms: 100\n" +
		"search: {embedder: embeddings::embed, embed_timeout_ms: 2000}\n"
	for name, doc := range map[string]string{"0.2": upstream, "config.yaml": string(shipped), "every 0.3 key": every} {
		cfg, err := Parse([]byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(cfg.UnknownKeys) > 0 {
			t.Errorf("%s: unknown keys %v", name, cfg.UnknownKeys)
		}
	}
}
