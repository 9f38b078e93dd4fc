package contract_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The contract (errors, names, shapes) and the packages that read a
// config and the files (config, fsource, paging) build without the engine
// client and its WebSocket stack: skills doctor and skills tools, which
// never talk to an engine, link none of it, and the client's own
// failures reach the contract's wording through an interface
// (CallFailure), not an import.
func TestContractImportsNoEngineClient(t *testing.T) {
	pkgs := []string{"contract", "config", "fsource", "paging"}
	args := []string{"list", "-deps"}
	for _, p := range pkgs {
		args = append(args, "github.com/iii-hq/skills-go/internal/"+p)
	}
	out, err := exec.Command("go", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "github.com/iii-hq/skills-go/internal/iii" || strings.HasPrefix(dep, "github.com/gorilla/websocket") {
			t.Errorf("%s depend on %s; want none of the engine client", strings.Join(pkgs, ", "), dep)
		}
	}
}
