package catalog

import (
	"runtime"
	"strings"
	"testing"
	"unsafe"
	"weak"
)

// A skill's summary outlives its body: the catalog keeps a summary for
// every key and a body only within cache_bytes. A summary whose title or
// description were slices of the body would keep the whole body alive
// after the cache dropped it, and cache_bytes would bound nothing.
func TestMetaKeepsNoBodyAlive(t *testing.T) {
	filler := strings.Repeat("Lorem ipsum dolor sit amet. ", 2000)
	for name, text := range map[string]string{
		"title and first paragraph": "# Email provider\n\nSends mail through the provider.\n\n" + filler,
		"frontmatter":               "---\nname: mail\ndescription: Sends mail.\n---\n# Email provider\n\n" + filler,
		"long paragraph, cut":       "# Email provider\n\n" + filler,
	} {
		t.Run(name, func(t *testing.T) {
			body := string([]byte(text)) // an allocation of its own, as a decoded row's body is
			collected := weak.Make(unsafe.StringData(body))
			meta := MetaOf("team/mail", body)
			if meta.Summary.Title != "Email provider" || meta.Summary.Desc == "" {
				t.Fatalf("summary = %+v", meta.Summary)
			}
			body = ""
			runtime.GC()
			runtime.GC()
			if collected.Value() != nil {
				t.Errorf("the %d-byte body is still reachable through its summary %+v; want it collected", len(text), meta.Summary)
			}
			runtime.KeepAlive(meta)
		})
	}
}

// BenchmarkMetaOf is the summary of a registered 4 KiB skill: it copies
// nothing of the body to hash it or to look for a frontmatter block
// (docs/decisions.md D77: 8.7 KB allocated per summary before, 0.5 KB
// after).
func BenchmarkMetaOf(b *testing.B) {
	body := ("# Email provider\n\nSend transactional email through the provider's API; read this before calling its functions.\n\n" +
		strings.Repeat("- step: call the function with the recipient, subject and body; check the result.\n", 50))[:4096]
	b.ReportAllocs()
	for b.Loop() {
		MetaOf("seq/s1", body)
	}
}
