package report

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/tsys-go/tsys/internal/cluster"
)

// Report is the --json object of `tsys run`. Field names are a contract
// (docs/CLI.md): add, never rename.
type Report struct {
	App         string         `json:"app"`
	Params      map[string]any `json:"params"`
	Result      any            `json:"result"`
	Verified    bool           `json:"verified"`
	Nodes       int            `json:"nodes"`
	Workers     int            `json:"workers"`
	Scheduler   string         `json:"scheduler"`
	Inline      string         `json:"inline"`
	WallSeconds float64        `json:"wall_seconds"`
	// WaitedSeconds is how long a job on a shared cluster waited for the
	// least nodes it asked for (--min-nodes), before its wall time began.
	WaitedSeconds float64 `json:"waited_seconds,omitempty"`
	// Stats are the run's counters, summed over its nodes; PerWorker, on
	// a run without a cluster, its workers' (cluster.WorkerStats).
	Stats     cluster.JobStats   `json:"stats"`
	PerNode   []NodeReport       `json:"per_node,omitempty"`
	PerWorker []cluster.JobStats `json:"per_worker,omitempty"`
	WorkSpan  *WorkSpan          `json:"workspan,omitempty"`
	// Launch is how a job a launcher started one process a rank (srun,
	// mpirun) gathered its ranks; nil for any other run.
	Launch *Launch `json:"launch,omitempty"`
}

// Launch is how a launched job gathered its ranks.
type Launch struct {
	// Launcher is what started the ranks: SLURM, Open MPI, MPICH (PMI),
	// Kubernetes or TSYS_RANK; Ranks how many; Job the job's name, from
	// which its port and key are derived.
	Launcher string `json:"launcher"`
	Ranks    int    `json:"ranks"`
	Job      string `json:"job"`
	// ReadySeconds is how long rank 0 took from its process's start to
	// the job's beginning: the ranks started and joined it.
	ReadySeconds float64 `json:"ready_seconds"`
	// BeganUnixNs is when the job began, on rank 0's clock: with each
	// node's first_work_ns, when the first task ran on every rank.
	BeganUnixNs int64 `json:"began_unix_ns"`
}

// NodeReport is one node's part of a cluster run.
type NodeReport = cluster.NodeReport

// WriteJSON writes r as one line of JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	if err := json.NewEncoder(w).Encode(r); err != nil {
		return fmt.Errorf("writing JSON: %w", err)
	}
	return nil
}

// Decode reads a report that WriteJSON wrote.
func Decode(data []byte) (*Report, error) {
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("decoding a run's report: %w", err)
	}
	return &r, nil
}

// IdleShare is the share of the run's worker time spent idle: the idle time
// of all workers over wall time x workers x nodes.
func (r *Report) IdleShare() float64 {
	total := r.WallSeconds * float64(max(r.Workers, 1)*max(r.Nodes, 1))
	if total <= 0 {
		return 0
	}
	return min(1, float64(r.Stats.IdleNanos)/1e9/total)
}

// WriteText writes the human summary: the result, the totals, and the
// profile of the workers when there is more than one.
func (r *Report) WriteText(w io.Writer, result string) {
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
	if ws := r.WorkSpan; ws != nil {
		fmt.Fprintf(w, "  work %.3f s, span %.4f s, parallelism %.1f; greedy bound T1/P + T_inf = %.3f s for P = %d, measured %.3f s\n",
			ws.WorkSeconds, ws.SpanSeconds, ws.Parallelism, ws.GreedyBoundSeconds, ws.Processors, r.WallSeconds)
	}
	r.writeProfile(w)
}
