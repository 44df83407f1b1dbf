package sched

// Stats are the counters of this node's scheduler: of one worker, or
// summed over a pool's workers for a run. What a node does for a job
// across nodes (tasks lent and borrowed, messages, requests for work)
// package cluster counts (cluster.NetStats). The JSON names are part of
// the command line's --json contract: add, never rename.
type Stats struct {
	Spawns        int64 `json:"spawns"`         // spawn calls, inlined or not
	Inlined       int64 `json:"inlined"`        // spawns that ran as a direct call
	TasksRun      int64 `json:"tasks_run"`      // task frames run to completion here
	LocalSteals   int64 `json:"local_steals"`   // tasks taken from another worker of this node
	StealAttempts int64 `json:"steal_attempts"` // local steal attempts, successful or not
	MaxDeque      int64 `json:"max_deque"`      // largest deque length seen at a push
	BlockedWaits  int64 `json:"blocked_waits"`  // Gets that had to park the task
	IdleNanos     int64 `json:"idle_ns"`        // time workers spent looking for work or parked
	StolenFrom    int64 `json:"stolen_from"`    // tasks other workers or nodes took from this worker's deque
	BusyNanos     int64 `json:"busy_ns"`        // time workers held work: the run's span less their idle time
	WorkNanos     int64 `json:"work_ns"`        // time task frames computed (with --workspan): the work T_1
	SpanNanos     int64 `json:"span_ns"`        // the run's critical path (with --workspan): the span T_inf
}

// Add sums o into s (MaxDeque takes the maximum).
func (s *Stats) Add(o Stats) {
	s.Spawns += o.Spawns
	s.Inlined += o.Inlined
	s.TasksRun += o.TasksRun
	s.LocalSteals += o.LocalSteals
	s.StealAttempts += o.StealAttempts
	s.BlockedWaits += o.BlockedWaits
	s.IdleNanos += o.IdleNanos
	s.StolenFrom += o.StolenFrom
	s.BusyNanos += o.BusyNanos
	s.WorkNanos += o.WorkNanos
	s.MaxDeque = max(s.MaxDeque, o.MaxDeque)
	s.SpanNanos = max(s.SpanNanos, o.SpanNanos)
}

// InlineRatio is the share of spawns that were inlined.
func (s Stats) InlineRatio() float64 {
	if s.Spawns == 0 {
		return 0
	}
	return float64(s.Inlined) / float64(s.Spawns)
}
