package iii

import (
	"strings"
	"testing"
)

func TestResolveURL(t *testing.T) {
	tests := []struct {
		name, flag, iiiURL, engineURL, want string
	}{
		{name: "flag wins", flag: "ws://flag:1", iiiURL: "ws://env:2", engineURL: "ws://engine:3", want: "ws://flag:1"},
		{name: "III_URL", iiiURL: "ws://env:2", engineURL: "ws://engine:3", want: "ws://env:2"},
		{name: "III_ENGINE_URL", engineURL: "ws://engine:3", want: "ws://engine:3"},
		{name: "default", want: "ws://127.0.0.1:49134"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("III_URL", tt.iiiURL)
			t.Setenv("III_ENGINE_URL", tt.engineURL)
			if got := ResolveURL(tt.flag); got != tt.want {
				t.Errorf("ResolveURL(%q) = %q, want %q", tt.flag, got, tt.want)
			}
		})
	}
}

func TestCheckURL(t *testing.T) {
	const allowed = "the engine speaks WebSocket: give ws://host:port (e.g. ws://127.0.0.1:49134) or wss://host:port for TLS"
	tests := []struct{ raw, want string }{
		{"ws://127.0.0.1:49134", ""},
		{"wss://engine.example.com/worker", ""},
		{"ws://localhost", ""},
		{"WS://LOCALHOST:1", ""},
		{"ws://[::1]:49134", ""},
		{"http://127.0.0.1:49134", `"http://127.0.0.1:49134" is an HTTP URL; ` + allowed + "; did you mean ws://127.0.0.1:49134?"},
		{"https://engine.example.com/x", `"https://engine.example.com/x" is an HTTP URL; ` + allowed + "; did you mean wss://engine.example.com/x?"},
		{"127.0.0.1:49134", `"127.0.0.1:49134" has no scheme; ` + allowed + "; did you mean ws://127.0.0.1:49134?"},
		{"localhost:49134", `"localhost:49134" has no scheme; ` + allowed + "; did you mean ws://localhost:49134?"},
		{"engine", `"engine" has no scheme; ` + allowed + "; did you mean ws://engine?"},
		{"ftp://host:21", `"ftp://host:21" has the scheme ftp://; ` + allowed},
		{"ws://", `"ws://" has no host; ` + allowed},
		{"ws://:49134", `"ws://:49134" has no host; ` + allowed},
		{"ws://bad host", `"ws://bad host" is not a URL (invalid character " " in host name); ` + allowed},
	}
	for _, tt := range tests {
		err := CheckURL(tt.raw)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("CheckURL(%q) = %q\nwant %q", tt.raw, got, tt.want)
		}
	}
}

// CheckedURL names where a bad value came from: the flag or the variable.
func TestCheckedURL(t *testing.T) {
	t.Setenv("III_URL", "")
	t.Setenv("III_ENGINE_URL", "http://engine:49134")
	if _, err := CheckedURL("127.0.0.1:1"); err == nil || !strings.HasPrefix(err.Error(), `--url "127.0.0.1:1" has no scheme`) {
		t.Errorf("flag: %v", err)
	}
	if _, err := CheckedURL(""); err == nil || !strings.HasPrefix(err.Error(), `III_ENGINE_URL="http://engine:49134": engine URL "http://engine:49134" is an HTTP URL`) {
		t.Errorf("III_ENGINE_URL: %v", err)
	}
	t.Setenv("III_URL", "ws://ok:1")
	if u, err := CheckedURL(""); u != "ws://ok:1" || err != nil {
		t.Errorf("III_URL = %q, %v", u, err)
	}
}
