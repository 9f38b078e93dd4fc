package yamlnode

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
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

func TestJSONKeepsTypesAndText(t *testing.T) {
	var doc yaml.Node
	src := "name: pdf\ndescription: \"Fill: forms\"\nversion: 2\nratio: 0.5\nbig: .inf\non: true\nnothing: ~\nwhen: 2024-01-02\nlist: [a, 1]\nmetadata:\n  owner: acme\nanchor: &x {k: v}\nalias: *x\n"
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	v, err := JSON(&doc)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"alias":{"k":"v"},"anchor":{"k":"v"},"big":".inf","description":"Fill: forms","list":["a",1],"metadata":{"owner":"acme"},"name":"pdf","nothing":null,"on":true,"ratio":0.5,"version":2,"when":"2024-01-02"}`
	if string(got) != want {
		t.Fatalf("JSON = %s\nwant   %s", got, want)
	}
}

func TestJSONBoundsDepth(t *testing.T) {
	var doc yaml.Node
	src := strings.Repeat("[", 200) + strings.Repeat("]", 200)
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	v, err := JSON(&doc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := json.Marshal(v); err != nil {
		t.Fatalf("a deep document does not render: %v", err)
	}
}

// An alias names a value many times over; JSON counts every copy and
// refuses a document that would blow up, quickly and without the memory.
func TestJSONRefusesAliasBombs(t *testing.T) {
	var b strings.Builder
	b.WriteString("x0: &a0 \"" + strings.Repeat("x", 1<<20) + "\"\n")
	for i := 1; i <= 5; i++ {
		fmt.Fprintf(&b, "x%d: &a%d [", i, i)
		for j := range 9 {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(b.String()), &doc); err != nil {
		t.Fatal(err)
	}
	if v, err := JSON(&doc); !errors.Is(err, ErrTooLarge) || v != nil {
		t.Fatalf("an alias bomb: %v, want ErrTooLarge", err)
	}
	// Aliases used a few times are fine.
	if err := yaml.Unmarshal([]byte("a: &x {k: v}\nb: *x\nc: *x\n"), &doc); err != nil {
		t.Fatal(err)
	}
	if _, err := JSON(&doc); err != nil {
		t.Errorf("a modest alias: %v", err)
	}
}
