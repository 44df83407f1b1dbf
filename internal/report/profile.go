package report

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/tsys-go/tsys/internal/sched"
)

// Worker is one worker's counters, named by its node.
type Worker struct {
	Node      string // the node's name; "" on a single-node run
	NodeIndex int    // the node's place in the report, the root's 0
	ID        int    // the worker's index on its node
	Counts    sched.Stats
}

// Label names the worker for people: "w1", or "node-a/w1" in a cluster.
func (w Worker) Label() string {
	if w.Node == "" {
		return fmt.Sprintf("w%d", w.ID)
	}
	return fmt.Sprintf("%s/w%d", w.Node, w.ID)
}

// BusyShare is the share of the worker's time it held work.
func (w Worker) BusyShare() float64 {
	total := w.Counts.BusyNanos + w.Counts.IdleNanos
	if total == 0 {
		return 0
	}
	return float64(w.Counts.BusyNanos) / float64(total)
}

// WorkerProfiles lists every worker of the run, node by node.
func (r *Report) WorkerProfiles() []Worker {
	if len(r.PerNode) == 0 {
		out := make([]Worker, len(r.PerWorker))
		for i, s := range r.PerWorker {
			out[i] = Worker{ID: i, Counts: s.Stats}
		}
		return out
	}
	var out []Worker
	for k, n := range r.PerNode {
		for i, s := range n.PerWorker {
			out = append(out, Worker{Node: n.Node, NodeIndex: k, ID: i, Counts: s.Stats})
		}
	}
	return out
}

// MostAndLeastLoaded are the workers with the largest and the smallest
// busy time (ok is false with fewer than two workers).
func MostAndLeastLoaded(ws []Worker) (most, least Worker, ok bool) {
	if len(ws) < 2 {
		return most, least, false
	}
	most, least = ws[0], ws[0]
	for _, w := range ws[1:] {
		if w.Counts.BusyNanos > most.Counts.BusyNanos {
			most = w
		}
		if w.Counts.BusyNanos < least.Counts.BusyNanos {
			least = w
		}
	}
	return most, least, true
}

// writeProfile writes, for a cluster run, a line per node of what crossed
// the network, and, with more than one worker, a compact table of where
// each worker's time and tasks went.
func (r *Report) writeProfile(w io.Writer) {
	for _, n := range r.PerNode {
		s := n.Stats
		fmt.Fprintf(w, "  node %s: tasks run %d, lent %d, borrowed %d, %d messages (%d bytes)",
			n.Node, s.TasksRun, s.TasksSent, s.TasksReceived, s.MessagesSent, s.BytesSent)
		if s.StealRequests > 0 {
			fmt.Fprintf(w, ", asked for work %d times, answered %d, waited %s", s.StealRequests, s.StealAnswers, ms(s.StealWaitNs))
		}
		if s.StatusSent > 0 {
			fmt.Fprintf(w, ", %d status messages (%d bytes)", s.StatusSent, s.StatusBytes)
		}
		fmt.Fprintln(w)
	}
	ws := r.WorkerProfiles()
	most, least, ok := MostAndLeastLoaded(ws)
	if !ok {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  worker\ttasks run\tspawns\tinlined\tsteals\tof tries\tstolen from\tbusy\tidle\tbusy share\t")
	for _, x := range ws {
		s := x.Counts
		fmt.Fprintf(tw, "  %s\t%d\t%d\t%.1f%%\t%d\t%d\t%d\t%s\t%s\t%.0f%%\t\n", x.Label(), s.TasksRun, s.Spawns,
			100*s.InlineRatio(), s.LocalSteals, s.StealAttempts, s.StolenFrom, ms(s.BusyNanos), ms(s.IdleNanos), 100*x.BusyShare())
	}
	tw.Flush()
	fmt.Fprintf(w, "  most loaded %s (busy %.0f%%), least loaded %s (busy %.0f%%)\n",
		most.Label(), 100*most.BusyShare(), least.Label(), 100*least.BusyShare())
}

func ms(ns int64) string {
	return time.Duration(ns).Round(10 * time.Microsecond).String()
}
