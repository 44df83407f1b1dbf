package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/tsys-go/tsys/cluster"
	"github.com/tsys-go/tsys/sched"
)

// report is the --json object of `tsys run`. Field names are a contract
// (CLI-CONTRACT.md): add, never rename.
type report struct {
	App         string         `json:"app"`
	Params      map[string]any `json:"params"`
	Result      any            `json:"result"`
	Verified    bool           `json:"verified"`
	Nodes       int            `json:"nodes"`
	Workers     int            `json:"workers"`
	Scheduler   string         `json:"scheduler"`
	Inline      string         `json:"inline"`
	WallSeconds float64        `json:"wall_seconds"`
	Stats       sched.Stats    `json:"stats"`
	PerNode     []nodeReport   `json:"per_node,omitempty"`
	PerWorker   []sched.Stats  `json:"per_worker,omitempty"`
}

// nodeReport is one node's part of a cluster run.
type nodeReport = cluster.NodeReport

func (r *report) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("writing JSON: %w", err)
	}
	return nil
}

func (r *report) writeText(w io.Writer, result string) {
	fmt.Fprintf(w, "%s: %s\n", r.App, result)
	verified := "not verified"
	if r.Verified {
		verified = "verified"
	}
	fmt.Fprintf(w, "  %s; %.3f s on %d node(s) x %d worker(s), scheduler %s, inline %s\n",
		verified, r.WallSeconds, r.Nodes, r.Workers, r.Scheduler, r.Inline)
	if r.Scheduler == "serial" {
		return
	}
	s := r.Stats
	fmt.Fprintf(w, "  spawns %d, inlined %.1f%%, tasks run %d, local steals %d of %d attempts",
		s.Spawns, 100*s.InlineRatio(), s.TasksRun, s.LocalSteals, s.StealAttempts)
	if s.RemoteSteals > 0 || s.TasksSent > 0 {
		fmt.Fprintf(w, ", remote steals %d, tasks sent %d (%d bytes in %d messages)",
			s.RemoteSteals, s.TasksSent, s.BytesSent, s.MessagesSent)
	}
	fmt.Fprintln(w)
}
