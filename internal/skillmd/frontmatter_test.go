package skillmd

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitFrontmatter(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		wantFront string
		wantBody  string
		wantOK    bool
	}{
		{"no frontmatter", "# Title\nbody\n", "", "# Title\nbody\n", false},
		{"with body", "---\nname: open-pr\n---\nThe body.\n", "name: open-pr", "The body.\n", true},
		{"frontmatter only", "---\nname: x\ndescription: y\n---\n", "name: x\ndescription: y", "", true},
		{"closing fence at EOF", "---\nfoo: bar\n---", "foo: bar", "", true},
		{"closing fence with CR at EOF", "---\nfoo: bar\n---\r", "foo: bar", "", true},
		{"CRLF file", "---\r\nname: x\r\n---\r\nbody\r\n", "name: x\r", "body\r\n", true},
		{"CRLF opener, LF closer", "---\r\nname: x\n---\nbody", "name: x", "body", true},
		{"unclosed block is body", "---\nname: x\nbody without closing fence\n", "", "---\nname: x\nbody without closing fence\n", false},
		{"two fences alone are no frontmatter", "---\n---\n", "", "---\n---\n", false},
		{"empty block", "---\n\n---\nbody", "", "body", true},
		{"must start at byte 0", "\n---\nname: x\n---\nbody", "", "\n---\nname: x\n---\nbody", false},
		{"BOM is not a fence", "\ufeff---\nname: x\n---\nbody", "", "\ufeff---\nname: x\n---\nbody", false},
		{"four dashes do not open", "----\nname: x\n---\nbody", "", "----\nname: x\n---\nbody", false},
		{"four dashes do not close", "---\nname: x\n----\nbody", "", "---\nname: x\n----\nbody", false},
		{"first LF closer wins", "---\na: 1\n---\nmiddle\n---\nend", "a: 1", "middle\n---\nend", true},
		{"LF closer wins over an earlier CRLF closer", "---\na\n---\r\nb\n---\nc", "a\n---\r\nb", "c", true},
		{"body kept byte for byte", "---\na: 1\n---\n\n\n  x  \n\n", "a: 1", "\n\n  x  \n\n", true},
		{"empty input", "", "", "", false},
		{"opener only", "---\n", "", "---\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			front, body, ok := SplitFrontmatter([]byte(tt.in))
			got := []any{string(front), string(body), ok}
			want := []any{tt.wantFront, tt.wantBody, tt.wantOK}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("SplitFrontmatter(%q) [front, body, ok] (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func FuzzSplitFrontmatter(f *testing.F) {
	for _, s := range []string{
		"", "---\n", "---\n---\n", "---\na: b\n---\nbody", "---\r\na: b\r\n---\r\nbody",
		"---\na\n---", "---\na\n---\r", "# x\n---\n", "---\n\n---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		front, body, ok := SplitFrontmatter(in)
		if !ok {
			if front != nil || !sameSlice(body, in) {
				t.Fatalf("not ok: front = %q, body = %q; want nil and the input itself", front, body)
			}
			return
		}
		if !bytes.HasPrefix(in, []byte("---")) {
			t.Fatalf("ok for input not starting with ---: %q", in)
		}
		open := len("---\n")
		if bytes.HasPrefix(in, []byte("---\r\n")) {
			open = len("---\r\n")
		}
		if !aliases(in, front, open) {
			t.Fatalf("front %q is not the sub-slice of %q at %d", front, in, open)
		}
		if !aliases(in, body, len(in)-len(body)) {
			t.Fatalf("body %q is not a suffix sub-slice of %q", body, in)
		}
		// Between front and body there is exactly one closing fence line.
		fence := string(in[open+len(front) : len(in)-len(body)])
		switch fence {
		case "\n---\n", "\n---\r\n", "\n---", "\n---\r":
		default:
			t.Fatalf("text between front and body is %q, not a fence line", fence)
		}
	})
}

// aliases reports whether sub is in[at:at+len(sub)], sharing memory.
func aliases(in, sub []byte, at int) bool {
	if at < 0 || at+len(sub) > len(in) || !bytes.Equal(in[at:at+len(sub)], sub) {
		return false
	}
	return len(sub) == 0 || &in[at] == &sub[0]
}

// sameSlice reports whether a and b are the same slice of memory.
func sameSlice(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
