package cluster

import "github.com/tsys-go/tsys/internal/sched"

// NetStats are a node's counters of a job across nodes, which its engine
// keeps (engine.counters): the tasks and messages that crossed the
// network, the requests for work and their answers, how loans ended, and
// the useful time its ticks measured. A node's scheduler counts the rest
// (sched.Stats). The JSON names are part of the command line's --json
// contract (docs/CLI.md): add, never rename.
type NetStats struct {
	RemoteSteals  int64 `json:"remote_steals"`   // tasks obtained from another node
	TasksSent     int64 `json:"tasks_sent"`      // tasks lent to another node
	TasksReceived int64 `json:"tasks_received"`  // tasks borrowed from another node
	BytesSent     int64 `json:"bytes_sent"`      // bytes written to other nodes
	MessagesSent  int64 `json:"messages_sent"`   // frames written to other nodes
	StealRequests int64 `json:"steal_requests"`  // requests for work sent to other nodes
	StealAnswers  int64 `json:"steal_answers"`   // ... answered, with tasks or without
	StealWaitNs   int64 `json:"steal_wait_ns"`   // time from each request to its answer, summed
	UsefulNs      int64 `json:"useful_ns"`       // busy time the CPU really ran (a node's, measured every tick)
	StatusSent    int64 `json:"status_messages"` // load reports sent to other nodes (balancing)
	StatusBytes   int64 `json:"status_bytes"`    // ... their bytes
	TasksRerun    int64 `json:"tasks_rerun"`     // lent tasks run again here: their borrower died, was silent too long, or no longer held them
	LateResults   int64 `json:"late_results"`    // results of lent tasks already run again here (a borrower only slow): dropped
	TasksReturned int64 `json:"tasks_returned"`  // lent tasks handed back unstarted (a borrower leaving, or one that cannot run them)
	Prefetched    int64 `json:"prefetched"`      // tasks borrowed ahead of need: asked for while every worker still had work (fishing's low=N)
	RanDry        int64 `json:"ran_dry"`         // requests ahead of need whose answer came after a worker had run out of work
	Backups       int64 `json:"backups"`         // lent tasks started again here as their borrower had said nothing for a while (backup.go): the first result wins
	Lifelines     int64 `json:"lifelines"`       // lifelines sent: requests that wait at their receiver until it has work (fishing's lifelines=N)
}

// Add sums o into s.
func (s *NetStats) Add(o NetStats) {
	s.RemoteSteals += o.RemoteSteals
	s.TasksSent += o.TasksSent
	s.TasksReceived += o.TasksReceived
	s.BytesSent += o.BytesSent
	s.MessagesSent += o.MessagesSent
	s.StealRequests += o.StealRequests
	s.StealAnswers += o.StealAnswers
	s.StealWaitNs += o.StealWaitNs
	s.UsefulNs += o.UsefulNs
	s.StatusSent += o.StatusSent
	s.StatusBytes += o.StatusBytes
	s.TasksRerun += o.TasksRerun
	s.LateResults += o.LateResults
	s.TasksReturned += o.TasksReturned
	s.Prefetched += o.Prefetched
	s.RanDry += o.RanDry
	s.Backups += o.Backups
	s.Lifelines += o.Lifelines
}

// JobStats are the counters of a job: a node's, its scheduler's and its
// engine's (NodeReport), or summed over the job's nodes (the --json
// object's stats). Both parts are embedded, so that their fields, and
// their JSON names, are JobStats' own: one flat object of counters.
type JobStats struct {
	sched.Stats
	NetStats
}

// Add sums o into s (MaxDeque takes the maximum).
func (s *JobStats) Add(o JobStats) {
	s.Stats.Add(o.Stats)
	s.NetStats.Add(o.NetStats)
}

// StealRatio is the share of the tasks run that were taken from another
// worker or node: how much of the work moved.
func (s JobStats) StealRatio() float64 {
	if s.TasksRun == 0 {
		return 0
	}
	return float64(s.LocalSteals+s.RemoteSteals) / float64(s.TasksRun)
}

// WorkerStats are workers' counters (sched.View.WorkerStats) as JobStats,
// for the per_worker entries of a report. A worker has no network
// counters of its own (its node's are its NodeReport's Stats), so their
// NetStats are zero; they are there because every object of counters in
// the --json output has the same keys (docs/CLI.md).
func WorkerStats(ws []sched.Stats) []JobStats {
	out := make([]JobStats, len(ws))
	for i, w := range ws {
		out[i].Stats = w
	}
	return out
}
