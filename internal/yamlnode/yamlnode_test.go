package yamlnode

import (
	"testing"

	"gopkg.in/yaml.v3"
)

func TestDescribeResolveIsNull(t *testing.T) {
	var doc yaml.Node
	src := "a: 5\nb: [1]\nc: {x: 1}\nd: ~\ne: &anchor hello\nf: *anchor\ng: " + string(make([]byte, 0)) + "'" + "0123456789012345678901234567890123456789xyz" + "'\n"
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	m := doc.Content[0]
	got := map[string]string{}
	nulls := map[string]bool{}
	for i := 0; i < len(m.Content); i += 2 {
		v := Resolve(m.Content[i+1])
		got[m.Content[i].Value] = Describe(v)
		nulls[m.Content[i].Value] = IsNull(v)
	}
	want := map[string]string{
		"a": `int "5"`, "b": "a list", "c": "a mapping", "d": `null "~"`,
		"e": `str "hello"`, "f": `str "hello"`, "g": `str "0123456789012345678901234567890123456789…"`,
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("Describe(%s) = %q, want %q", k, got[k], w)
		}
	}
	if !nulls["d"] || nulls["a"] {
		t.Errorf("IsNull: %v", nulls)
	}
}
