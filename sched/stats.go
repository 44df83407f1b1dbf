package sched

// Stats are the counters of one worker, or summed over a node or a cluster.
// The JSON names are part of the command line's --json contract: add, never
// rename.
type Stats struct {
	Spawns        int64 `json:"spawns"`          // spawn calls, inlined or not
	Inlined       int64 `json:"inlined"`         // spawns that ran as a direct call
	TasksRun      int64 `json:"tasks_run"`       // task frames run to completion here
	LocalSteals   int64 `json:"local_steals"`    // tasks taken from another worker of this node
	StealAttempts int64 `json:"steal_attempts"`  // local steal attempts, successful or not
	RemoteSteals  int64 `json:"remote_steals"`   // tasks obtained from another node
	TasksSent     int64 `json:"tasks_sent"`      // tasks lent to another node
	TasksReceived int64 `json:"tasks_received"`  // tasks borrowed from another node
	BytesSent     int64 `json:"bytes_sent"`      // bytes written to other nodes
	MessagesSent  int64 `json:"messages_sent"`   // frames written to other nodes
	MaxDeque      int64 `json:"max_deque"`       // largest deque length seen at a push
	BlockedWaits  int64 `json:"blocked_waits"`   // Gets that had to park the task
	IdleNanos     int64 `json:"idle_ns"`         // time workers spent looking for work or parked
	StealRequests int64 `json:"steal_requests"`  // requests for work sent to other nodes
	StealAnswers  int64 `json:"steal_answers"`   // ... answered, with tasks or without
	StealWaitNs   int64 `json:"steal_wait_ns"`   // time from each request to its answer, summed
	UsefulNs      int64 `json:"useful_ns"`       // busy time the CPU really ran (a node's, measured every tick)
	StatusSent    int64 `json:"status_messages"` // load reports sent to other nodes (balancing)
	StatusBytes   int64 `json:"status_bytes"`    // ... their bytes
	StolenFrom    int64 `json:"stolen_from"`     // tasks other workers or nodes took from this worker's deque
	BusyNanos     int64 `json:"busy_ns"`         // time workers held work: the run's span less their idle time
	WorkNanos     int64 `json:"work_ns"`         // time task frames computed (with --workspan): the work T_1
	TasksRerun    int64 `json:"tasks_rerun"`     // lent tasks run again here: their borrower died, was silent too long, or no longer held them
	LateResults   int64 `json:"late_results"`    // results of lent tasks already run again here (a borrower only slow): dropped
	TasksReturned int64 `json:"tasks_returned"`  // lent tasks handed back unstarted (a borrower leaving, or one that cannot run them)
}

// Add sums o into s (MaxDeque takes the maximum).
func (s *Stats) Add(o Stats) {
	s.Spawns += o.Spawns
	s.Inlined += o.Inlined
	s.TasksRun += o.TasksRun
	s.LocalSteals += o.LocalSteals
	s.StealAttempts += o.StealAttempts
	s.RemoteSteals += o.RemoteSteals
	s.TasksSent += o.TasksSent
	s.TasksReceived += o.TasksReceived
	s.BytesSent += o.BytesSent
	s.MessagesSent += o.MessagesSent
	s.BlockedWaits += o.BlockedWaits
	s.IdleNanos += o.IdleNanos
	s.StealRequests += o.StealRequests
	s.StealAnswers += o.StealAnswers
	s.StealWaitNs += o.StealWaitNs
	s.UsefulNs += o.UsefulNs
	s.StatusSent += o.StatusSent
	s.StatusBytes += o.StatusBytes
	s.StolenFrom += o.StolenFrom
	s.BusyNanos += o.BusyNanos
	s.WorkNanos += o.WorkNanos
	s.TasksRerun += o.TasksRerun
	s.LateResults += o.LateResults
	s.TasksReturned += o.TasksReturned
	s.MaxDeque = max(s.MaxDeque, o.MaxDeque)
}

// StealRatio is the share of the tasks run that were taken from another
// worker or node: how much of the work moved.
func (s Stats) StealRatio() float64 {
	if s.TasksRun == 0 {
		return 0
	}
	return float64(s.LocalSteals+s.RemoteSteals) / float64(s.TasksRun)
}

// InlineRatio is the share of spawns that were inlined.
func (s Stats) InlineRatio() float64 {
	if s.Spawns == 0 {
		return 0
	}
	return float64(s.Inlined) / float64(s.Spawns)
}
