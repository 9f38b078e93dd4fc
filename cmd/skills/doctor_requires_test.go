package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/iii-hq/skills-go/internal/catalog/catalogtest"
	"github.com/iii-hq/skills-go/internal/iii"
	"github.com/iii-hq/skills-go/internal/iii/iiitest"
)

// skills doctor reports what each file requires (docs/decisions.md D85):
// offline, the entries it cannot read; with --url, also the files whose
// functions that engine does not offer. Neither is a problem for the exit.
func TestDoctorRequirements(t *testing.T) {
	dir := t.TempDir()
	catalogtest.WriteFiles(t, dir, map[string]string{
		"skills/status.md": "# Status\n\nRead [the status](iii://fn/acme/status).\n",
		"skills/refund.md": "---\nrequires:\n  functions: [acme::refund, \"has space\"]\n  skills: [status]\n---\n# Refund\n",
		"skills/plain.md":  "# Plain\n",
	})
	cfgPath := dir + "/config.yaml"
	writeFile(t, cfgPath, "skills: [skills/*.md]\n")
	ctx := context.Background()

	code, out, errOut := runCmd(t, ctx, "doctor", "--config", cfgPath)
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"REQUIREMENTS: 2 skills require functions or skills; the engine's functions not checked (give --url to check them); 0 unavailable (unavailable: mark)",
		"refund  warning: `requires.functions[1]` must be a function id",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}

	srv := iiitest.NewServer(t)
	acme := iii.New(iii.Options{URL: srv.URL(), Name: "acme"})
	acme.RegisterFunction(iii.Function{ID: "acme::status", Handler: func(context.Context, iii.Request) (any, error) { return "ok", nil }})
	startReady(t, acme)
	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := srv.WaitFunction(waitCtx, "acme::status"); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCmd(t, ctx, "doctor", "--config", cfgPath, "--url", srv.URL())
	if code != 0 {
		t.Fatalf("exit %d with --url, want 0\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"checked against the engine's", "; 1 unavailable (unavailable: mark)", "refund  unavailable: function acme::refund"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor --url output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "status  unavailable") {
		t.Errorf("doctor --url marks status, whose acme::status the engine offers:\n%s", out)
	}
}
