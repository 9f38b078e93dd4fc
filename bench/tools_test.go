//go:build unix

package bench

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/fsource"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/tools"
	"github.com/iii-hq/skills-go/internal/toolset"
)

const trueSkill = "---\nname: bench\nversion: 1.0.0\ndescription: Benchmark tools.\n---\n" +
	"### nothing\n\nRun true.\n\n#### Command\n\n```\ntrue\n```\n"

// BenchmarkToolCall measures the overhead of a typed tool (D38): a call of
// an approved tool whose command is `true`, through the same engine as a
// no-op echo, and `true` spawned directly with os/exec (no engine) for
// the cost of starting a process at all.
//
//	go test -run '^$' -bench ToolCall -count 5 ./bench/
func BenchmarkToolCall(b *testing.B) {
	echo := iii.NewFunction("bench::echo", "returns nothing", func(context.Context, echoIn) (string, error) { return "", nil })
	r := newRig(b, rigOptions{extra: []iii.Function{echo}})
	dir := b.TempDir()
	path := filepath.Join(dir, "skills", "bench", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(trueSkill), 0o644); err != nil {
		b.Fatal(err)
	}
	lockPath := filepath.Join(dir, "tools.lock")
	lock := tools.Lock{Approved: map[string]tools.Approval{path: {Skill: "bench", SHA256: tools.Sum([]byte(trueSkill))}}}
	if err := lock.Write(lockPath); err != nil {
		b.Fatal(err)
	}
	set := toolset.New(toolset.Options{Registrar: r.worker, Runner: tools.NewRunner(tools.RunnerOptions{}), LockPath: lockPath})
	skills, _ := fsource.New(dir, nil, nil, fsource.Roots("skills")).Skills()
	set.Sync(skills)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.srv.WaitFunction(ctx, "bench::nothing"); err != nil {
		b.Fatal(err)
	}
	b.Run("echo", func(b *testing.B) {
		for range b.N {
			r.call(b, "bench::echo", map[string]any{})
		}
	})
	b.Run("tool-true", func(b *testing.B) {
		for range b.N {
			r.call(b, "bench::nothing", map[string]any{})
		}
	})
	b.Run("exec-true", func(b *testing.B) {
		for range b.N {
			if err := exec.Command("true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
