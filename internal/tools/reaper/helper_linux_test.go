package reaper

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// start runs script under the helper and returns it with the first line
// the script prints.
func start(t *testing.T, script string) (*Process, string) {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pr.Close() })
	p, err := Start("/bin/sh", []string{"-c", script}, t.TempDir(), []string{"PATH=" + os.Getenv("PATH")}, pw)
	pw.Close()
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		p.Kill()
		p.Wait()
		t.Fatalf("the command printed no line: %v", err)
	}
	return p, strings.TrimSpace(line)
}

// gone fails unless process pid no longer exists at all: not running,
// and not a zombie either, since the helper reaps what it kills.
func gone(t *testing.T, what string, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("%s (pid %d) is still there (kill -0: %v)", what, pid, err)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// The worker ending, however (its end of the control pipe closes), kills
// everything the command started, as a timeout does.
func TestHelperKillsEverythingWhenTheWorkerGoes(t *testing.T) {
	p, line := start(t, "setsid sleep 60 & echo $!; exec sleep 60")
	pid, err := strconv.Atoi(line)
	if err != nil {
		t.Fatalf("the command said %q", line)
	}
	p.control.Close() // as the kernel does when the worker ends
	if res := p.Wait(); res.Err != nil || !res.Status.Signaled() || res.Status.Signal() != syscall.SIGKILL {
		t.Errorf("the command ended %+v, want killed", res)
	}
	gone(t, "the setsid child", pid)
}

// Terminate sends SIGTERM to the command's group and to the orphans
// outside it; a process that traps it ends as it chooses.
func TestHelperTerminates(t *testing.T) {
	p, _ := start(t, `trap "echo bye; exit 7" TERM; echo ready; while :; do sleep 0.05; done`)
	p.Terminate()
	if res := p.Wait(); res.Err != nil || res.Status.ExitStatus() != 7 {
		t.Errorf("the command ended %+v, want exit 7", res)
	}
}

// The command cannot reach the helper's report (fd 4) or control pipe
// (its stdin is /dev/null): what it writes there forges nothing.
func TestHelperReportCannotBeForged(t *testing.T) {
	p, line := start(t, `echo "$(readlink /proc/$$/fd/0)"; echo "exit 0" >&4; exit 3`)
	if line != os.DevNull {
		t.Errorf("the command's stdin is %q, want %s", line, os.DevNull)
	}
	if res := p.Wait(); res.Err != nil || res.Status.ExitStatus() != 3 {
		t.Errorf("the command ended %+v, want exit 3", res)
	}
}

// A program that cannot be executed is reported with exec's errno, as
// os/exec would return it.
func TestHelperReportsAStartError(t *testing.T) {
	dir := t.TempDir()
	text := dir + "/text"
	if err := os.WriteFile(text, []byte("echo hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]error{text: syscall.ENOEXEC, dir + "/missing": syscall.ENOENT, dir: syscall.EACCES} {
		_, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		p, err := Start(path, nil, dir, nil, pw)
		pw.Close()
		if err != nil {
			t.Fatal(err)
		}
		if res := p.Wait(); !errors.Is(res.StartErr, want) {
			t.Errorf("%s: %+v, want the start error %v", path, res, want)
		}
	}
}

// The helper's report is read as it was written, and a helper that died
// without one is reported as such.
func TestReadReport(t *testing.T) {
	for _, c := range []struct {
		report string
		werr   error
		want   string
	}{
		{"exit 0\n", nil, "status 0"},
		{"exit 768\n", nil, "status 3"},
		{"exit 9\n", nil, "signal killed"},
		{"start 13\n", nil, "start permission denied"},
		{"error cannot become a child subreaper: EPERM\n", nil, "error the tool helper failed: cannot become a child subreaper: EPERM"},
		{"", nil, "error the tool helper ended (<nil>) without saying how the command did"},
		{"exit x\n", errors.New("boom"), "error the tool helper ended (boom) without saying how the command did"},
	} {
		res := readReport([]byte(c.report), c.werr)
		var got string
		switch {
		case res.Err != nil:
			got = "error " + res.Err.Error()
		case res.StartErr != nil:
			got = "start " + res.StartErr.Error()
		case res.Status.Signaled():
			got = "signal " + res.Status.Signal().String()
		default:
			got = fmt.Sprintf("status %d", res.Status.ExitStatus())
		}
		if got != c.want {
			t.Errorf("readReport(%q, %v) = %q, want %q", c.report, c.werr, got, c.want)
		}
	}
}
