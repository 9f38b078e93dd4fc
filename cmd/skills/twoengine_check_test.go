//go:build unix

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/iii-hq/skills-go/internal/contract"
	"github.com/iii-hq/skills-go/internal/mcpserver"
)

// stored is the field test's judge: the skill rows Redis holds in
// state:skills (iii's layout, docs/decisions.md D71), read directly with
// HGETALL, not through any engine.
type stored struct {
	raw    map[string]string // id → the row's bytes
	bodies map[string]string // id → the row's skill
}

// readStored reads state:skills from Redis.
func readStored(ctx context.Context, rc *redis.Client) (stored, error) {
	raw, err := rc.HGetAll(ctx, "state:skills").Result()
	if err != nil {
		return stored{}, fmt.Errorf("HGETALL state:skills: %w", err)
	}
	st := stored{raw: raw, bodies: map[string]string{}}
	for id, v := range raw {
		var row struct{ ID, Skill string }
		if err := json.Unmarshal([]byte(v), &row); err != nil || row.ID != id {
			return stored{}, fmt.Errorf("state:skills field %s holds %s, not a skill row of that id (%v)", id, v, err)
		}
		st.bodies[id] = row.Skill
	}
	return st, nil
}

// ids is the stored ids in byte order, as skills::list sorts them.
func (st stored) ids() []string {
	out := make([]string, 0, len(st.bodies))
	for id := range st.bodies {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// changesTo is what a replica whose mirror held st learns on loading
// now: one change per id whose row is new, different or gone.
func (st stored) changesTo(now stored) []string {
	var out []string
	for id, v := range now.raw {
		if old, ok := st.raw[id]; !ok || old != v {
			out = append(out, "register "+id)
		}
	}
	for id := range st.raw {
		if _, ok := now.raw[id]; !ok {
			out = append(out, "unregister "+id)
		}
	}
	slices.Sort(out)
	return out
}

// The bodies the field test writes (fieldBody) have a title line, a
// description paragraph holding a word no other body holds, and a last
// paragraph; these read them back out of a stored body.
var (
	fieldTitleRe = regexp.MustCompile(`(?m)^# (.+)$`)
	fieldDescRe  = regexp.MustCompile(`(?m)^(Field test .+)$`)
	fieldWordRe  = regexp.MustCompile(`\bzq\d+x\b`)
)

// fieldParts is the title, the description and the word of a body
// fieldBody wrote; "" for a part a body lacks (none the test wrote).
func fieldParts(body string) (title, desc, word string) {
	if m := fieldTitleRe.FindStringSubmatch(body); m != nil {
		title = m[1]
	}
	if m := fieldDescRe.FindStringSubmatch(body); m != nil {
		desc = m[1]
	}
	return title, desc, fieldWordRe.FindString(body)
}

// fieldBody is the body step writes for id: its title, then a
// description holding the step's word (one no other body holds).
func fieldBody(id string, step int, how string) string {
	return fmt.Sprintf("# Skill %s\n\nField test %s for %s, written at step %d.\n\n%s\n", id, fieldWord(step), id, step, how)
}

// fieldWord is step's unique word: a run of letters and digits that the
// search's analysis keeps whole (docs/search.md).
func fieldWord(step int) string { return fmt.Sprintf("zq%dx", step) }

// agree compares every surface of s's replica with st: skills::list (ids
// and sizes), the iii://skills index (each id with its title and
// description, no other), a read of every skill (its bytes), skill::search
// (each stored skill found by its word, none by a word it no longer
// holds: gone lists each id's last word no longer stored), and the MCP
// Skills extension's skills/list and resources/list through skills mcp.
// It returns the first difference, nil when every surface agrees.
func agree(ctx context.Context, s *side, st stored, gone map[string]string) error {
	ids := st.ids()
	// skills::list
	out, err := s.call(ctx, contract.FnSkillsList, map[string]any{})
	if err != nil {
		return fmt.Errorf("skills::list: %w", err)
	}
	var list struct {
		Skills []struct {
			ID    string `json:"id"`
			Bytes int    `json:"bytes"`
		} `json:"skills"`
	}
	if err := json.Unmarshal(out, &list); err != nil {
		return fmt.Errorf("skills::list: %w", err)
	}
	var listed []string
	for _, e := range list.Skills {
		listed = append(listed, e.ID)
		if body, ok := st.bodies[e.ID]; ok && e.Bytes != len(body) {
			return fmt.Errorf("skills::list gives %s %d bytes, Redis holds %d", e.ID, e.Bytes, len(body))
		}
	}
	if !slices.Equal(listed, ids) {
		return fmt.Errorf("skills::list lists %v, Redis holds %v", listed, ids)
	}
	// the index, and a read of every skill
	index, err := readText(ctx, s, "iii://skills")
	if err != nil {
		return err
	}
	for id, body := range st.bodies {
		title, desc, _ := fieldParts(body)
		line := fmt.Sprintf("[`%s`](iii://%s) — %s — %s\n", id, id, title, desc)
		if !strings.Contains(index, line) {
			return fmt.Errorf("the index lacks %q:\n%s", line, index)
		}
		text, err := readText(ctx, s, "iii://"+id)
		if err != nil {
			return err
		}
		if text != body {
			return fmt.Errorf("iii://%s reads %q, Redis holds %q", id, text, body)
		}
	}
	for id := range gone {
		if _, ok := st.bodies[id]; !ok && strings.Contains(index, "(iii://"+id+")") {
			return fmt.Errorf("the index still lists %s, which Redis no longer holds:\n%s", id, index)
		}
	}
	// search
	for id, body := range st.bodies {
		_, _, word := fieldParts(body)
		if err := searchFinds(ctx, s, word, id, true); err != nil {
			return err
		}
	}
	for id, word := range gone {
		if err := searchFinds(ctx, s, word, id, false); err != nil {
			return err
		}
	}
	return agreeOverMCP(ctx, s, st)
}

// readText is the text skills::resources-read gives for uri.
func readText(ctx context.Context, s *side, uri string) (string, error) {
	out, err := s.call(ctx, contract.FnSkillsResourcesRead, map[string]string{"uri": uri})
	if err != nil {
		return "", fmt.Errorf("skills::resources-read %s: %w", uri, err)
	}
	var read struct {
		Contents []struct{ Text string } `json:"contents"`
	}
	if err := json.Unmarshal(out, &read); err != nil || len(read.Contents) != 1 {
		return "", fmt.Errorf("skills::resources-read %s gave %s (%v), want one content", uri, out, err)
	}
	return read.Contents[0].Text, nil
}

// searchFinds checks that skill::search for word finds id, or does not.
func searchFinds(ctx context.Context, s *side, word, id string, want bool) error {
	out, err := s.call(ctx, contract.FnSkillSearch, map[string]any{"query": word})
	if err != nil {
		return fmt.Errorf("skill::search %s: %w", word, err)
	}
	var res contract.SearchResults
	if err := json.Unmarshal(out, &res); err != nil {
		return fmt.Errorf("skill::search %s: %w", word, err)
	}
	found := slices.ContainsFunc(res.Results, func(r contract.SearchResult) bool { return r.ID == id })
	switch {
	case want && !found:
		return fmt.Errorf("skill::search %q does not find %s, whose stored body holds the word: %s", word, id, out)
	case !want && found:
		return fmt.Errorf("skill::search %q finds %s, whose stored body no longer holds the word: %s", word, id, out)
	}
	return nil
}

// agreeOverMCP compares what skills mcp serves with st: the extension's
// skills/list (a skill://<id>/SKILL.md per stored skill, its frontmatter's
// description the index's) and resources/list (the index and an
// iii://<id> per stored skill).
func agreeOverMCP(ctx context.Context, s *side, st stored) error {
	var got, want []string
	var cursor string
	for {
		page, err := mcp.CallCustomMethod[*mcpSkillsParams, *mcpSkillsListed](ctx, s.mcp, mcpserver.MethodSkillsList, &mcpSkillsParams{Cursor: cursor})
		if err != nil {
			return fmt.Errorf("MCP skills/list: %w", err)
		}
		for _, sk := range page.Skills {
			got = append(got, sk.URI)
			id := strings.TrimSuffix(strings.TrimPrefix(sk.URI, "skill://"), "/SKILL.md")
			body, ok := st.bodies[id]
			if _, desc, _ := fieldParts(body); ok && sk.Frontmatter.Description != desc {
				return fmt.Errorf("MCP skills/list gives %s the description %q, its stored body %q", sk.URI, sk.Frontmatter.Description, body)
			}
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	for _, id := range st.ids() {
		want = append(want, "skill://"+id+"/SKILL.md")
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		return fmt.Errorf("MCP skills/list lists %v, Redis holds %v", got, want)
	}
	got, want = got[:0], []string{"iii://skills"}
	for r, err := range s.mcp.Resources(ctx, nil) {
		if err != nil {
			return fmt.Errorf("MCP resources/list: %w", err)
		}
		got = append(got, r.URI)
	}
	for _, id := range st.ids() {
		want = append(want, "iii://"+id)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		return fmt.Errorf("MCP resources/list lists %v, Redis holds %v", got, want)
	}
	return nil
}
