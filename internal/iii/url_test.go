package iii

import "testing"

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
