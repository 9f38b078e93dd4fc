package features

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"
)

// frameWait bounds how long a connection may take to send its handshake;
// the second connection comes after a reconnect delay of 1 s ± 30 %.
const frameWait = 5 * time.Second

// Steps about the frames the worker sends to a recording engine
// (docs/decisions.md D12).
func (w *world) handshakeSteps(sc *godog.ScenarioContext) {
	sc.Step(`^I start the worker against a recording engine$`, func() error {
		cfg, err := w.writeConfig()
		if err != nil {
			return err
		}
		w.procs.rec = newRecordingEngine()
		return w.spawnWorker([]string{"--url", w.procs.rec.url(), "--config", cfg}, nil)
	})
	sc.Step(`^connection (\d+) opens with:$`, w.connectionOpensWith)
	sc.Step(`^frame (\d+) of connection (\d+) has:$`, func(i, n int, doc *godog.DocString) error {
		frame, _, err := w.frame(n, i)
		if err != nil {
			return err
		}
		want, err := parseJSON([]byte(doc.Content))
		if err != nil {
			return err
		}
		if err := contains(want, frame); err != nil {
			return fmt.Errorf("frame %d of connection %d %s: %w", i, n, show(frame), err)
		}
		return nil
	})
	sc.Step(`^frame (\d+) of connection (\d+) has no "([^"]*)"$`, func(i, n int, key string) error {
		frame, _, err := w.frame(n, i)
		if err != nil {
			return err
		}
		if got, ok := lookup(frame, key); ok {
			return fmt.Errorf("frame %d of connection %d has %s = %s", i, n, key, show(got))
		}
		return nil
	})
	sc.Step(`^frame (\d+) of connection (\d+) carries the worker's pid$`, func(i, n int) error {
		frame, _, err := w.frame(n, i)
		if err != nil {
			return err
		}
		pid, _ := lookup(frame, "data.pid")
		if want := json.Number(strconv.Itoa(w.worker.cmd.Process.Pid)); !equal(want, pid) {
			return fmt.Errorf("data.pid is %s, want %s", show(pid), want)
		}
		return nil
	})
	sc.Step(`^connection (\d+) sends "([^"]*)" for:$`, func(n int, typ string, doc *godog.DocString) error {
		if w.procs.rec == nil {
			return fmt.Errorf("no recording engine in this scenario")
		}
		frames, _, err := w.procs.rec.frames(n, 1, frameWait)
		if err != nil {
			return err
		}
		var got []string
		for _, raw := range frames {
			f := decode(raw)
			if t, _ := lookupString(f, "type"); t == typ {
				id, _ := lookupString(f, "id")
				got = append(got, id)
			}
		}
		// Each wanted id is a path.Match pattern ("*" stands for a random
		// suffix) and must match exactly one sent id.
		want := strings.Fields(w.expand(doc.Content))
		slices.Sort(got)
		slices.Sort(want)
		if len(got) != len(want) {
			return fmt.Errorf("%s ids on connection %d are %q, want %q", typ, n, got, want)
		}
		for _, pattern := range want {
			matched := 0
			for _, id := range got {
				if ok, _ := path.Match(pattern, id); ok {
					matched++
				}
			}
			if matched != 1 {
				return fmt.Errorf("%s ids on connection %d are %q; %d of them match %q, want 1", typ, n, got, matched, pattern)
			}
		}
		return nil
	})
	sc.Step(`^the recording engine drops connection (\d+)$`, func(n int) error {
		if w.procs.rec == nil {
			return fmt.Errorf("no recording engine in this scenario")
		}
		return w.procs.rec.drop(n)
	})
	sc.Step(`^connection (\d+) reattaches as the worker of connection (\d+)$`, func(n, prev int) error {
		frame, _, err := w.frame(n, 1)
		if err != nil {
			return err
		}
		_, old, err := w.procs.rec.frames(prev, 0, frameWait)
		if err != nil {
			return err
		}
		want := map[string]any{"type": "reattach", "previous_worker_id": old.workerID, "reattach_token": old.token}
		if err := contains(want, frame); err != nil {
			return fmt.Errorf("first frame of connection %d %s: %w", n, show(frame), err)
		}
		return nil
	})
}

// frame returns frame i (1-based) of connection n, decoded.
func (w *world) frame(n, i int) (any, *recordedConn, error) {
	if w.procs.rec == nil {
		return nil, nil, fmt.Errorf("no recording engine in this scenario")
	}
	frames, c, err := w.procs.rec.frames(n, i, frameWait)
	if err != nil {
		return nil, nil, err
	}
	return decode(frames[i-1]), c, nil
}

// connectionOpensWith checks the first frames of connection n against a
// table of | frame | count | rows, where frame is the frame type, or
// "invokefunction <function_id>".
func (w *world) connectionOpensWith(n int, table *godog.Table) error {
	if w.procs.rec == nil {
		return fmt.Errorf("no recording engine in this scenario")
	}
	var want []string
	for _, row := range table.Rows[1:] {
		count, err := strconv.Atoi(row.Cells[1].Value)
		if err != nil {
			return fmt.Errorf("count %q: %w", row.Cells[1].Value, err)
		}
		for range count {
			want = append(want, row.Cells[0].Value)
		}
	}
	frames, _, err := w.procs.rec.frames(n, len(want), frameWait)
	if err != nil {
		return err
	}
	got := make([]string, len(want))
	for i, raw := range frames[:len(want)] {
		f := decode(raw)
		got[i], _ = lookupString(f, "type")
		if got[i] == "invokefunction" {
			fn, _ := lookupString(f, "function_id")
			got[i] += " " + fn
		}
	}
	if !slices.Equal(got, want) {
		return fmt.Errorf("connection %d opened with\n  %s\nwant\n  %s", n, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	return nil
}
