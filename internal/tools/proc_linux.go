package tools

import (
	"os"

	"github.com/iii-hq/skills-go/internal/tools/reaper"
)

// reapedProcess is a command under the reaper's helper, which kills
// everything the command started, whatever its process group or session,
// when the command ends or is stopped (package reaper).
type reapedProcess struct{ p *reaper.Process }

// startProcess starts path with args in dir, with env, stdin empty and
// stdout and stderr on out.
func startProcess(path string, args []string, dir string, env []string, out *os.File) (process, error) {
	p, err := reaper.Start(path, args, dir, env, out)
	if err != nil {
		return nil, err
	}
	return reapedProcess{p}, nil
}

func (r reapedProcess) wait() ended {
	res := r.p.Wait()
	return ended{status: res.Status, err: res.Err, startErr: res.StartErr}
}

func (r reapedProcess) terminate() { r.p.Terminate() }

func (r reapedProcess) kill() { r.p.Kill() }
