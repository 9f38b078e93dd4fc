package registry

import (
	"strings"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/catalog"
)

// BenchmarkReadCounting is the cost of usage counting on a read
// (docs/decisions.md D84): skills::resources-read of a 4 KiB skill the
// mirror holds, with its count (resourcesRead) and without (read and
// the same envelope, no count), in the same run;
// "parallel" reads the one id from every core at once, the contended
// case.
func BenchmarkReadCounting(b *testing.B) {
	mirror := catalog.NewSkillsScope("skills", 1<<20)
	mirror.BeginLoad()
	mirror.EndLoad(nil)
	r := New(Config{Caller: newFakeEngine(), SkillsMirror: mirror, StateTimeout: 2 * time.Second})
	ctx := b.Context()
	if _, err := r.registerSkill(ctx, registerSkillInput{ID: "pg/backup", Skill: "# Backups\n\n" + strings.Repeat("a", 4096)}); err != nil {
		b.Fatal(err)
	}
	in := readResourceInput{URI: new("iii://pg/backup")}
	counted := func() {
		if _, err := r.resourcesRead(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
	uncounted := func() {
		mime, text, _, err := r.read(ctx, *in.URI)
		if err != nil {
			b.Fatal(err)
		}
		_ = envelopeOf(*in.URI, mime, text)
	}
	for _, v := range []struct {
		name string
		read func()
	}{{"uncounted", uncounted}, {"counted", counted}} {
		b.Run(v.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				v.read()
			}
		})
		b.Run(v.name+"/parallel", func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					v.read()
				}
			})
		})
	}
}

// envelopeOf is resourcesRead's answer for a read, built as it builds it
// (on the heap: returned from a call not inlined).
//
//go:noinline
func envelopeOf(uri, mime, text string) readResourceOutput {
	return readResourceOutput{Contents: []resourceContent{{URI: uri, MimeType: mime, Text: text}}}
}
