package sim

import "time"

// Result is what a simulation measured. Times are virtual.
type Result struct {
	Workload  string `json:"workload"`
	Scheduler string `json:"scheduler"`
	Nodes     int    `json:"nodes"`
	Workers   int    `json:"workers"`
	// Makespan is when the root's task tree was done, results home.
	Makespan time.Duration `json:"makespan_ns"`
	// Work is T_1, the tasks' costs summed; Span is T_inf, the costliest
	// chain from the root to a leaf.
	Work time.Duration `json:"work_ns"`
	Span time.Duration `json:"span_ns"`
	// LowerBound is max(T_1/P, T_inf), below which no schedule finishes;
	// GreedyBound is T_1/P + T_inf, which a greedy schedule with free
	// communication never exceeds.
	LowerBound  time.Duration `json:"lower_bound_ns"`
	GreedyBound time.Duration `json:"greedy_bound_ns"`
	// Efficiency is E_P = T_1/(P x makespan).
	Efficiency     float64 `json:"efficiency"`
	Tasks          int64   `json:"tasks"`
	Inlined        int64   `json:"inlined"` // of Tasks, those run as calls
	TasksMoved     int64   `json:"tasks_moved"`
	Messages       int64   `json:"messages"`
	CrossZone      int64   `json:"cross_zone_messages"` // of Messages, those between zones
	Bytes          int64   `json:"bytes"`
	StatusMessages int64   `json:"status_messages"`
	// Refusals are the answers to requests for work that brought no
	// task, Results the messages that took lent tasks' results home (one
	// or more each: package returns).
	Refusals int64 `json:"refusals"`
	Results  int64 `json:"results"`
	// Lifelines are the lifelines the nodes sent (fishing's lifelines=N):
	// requests for work that wait at their receiver until it has some.
	Lifelines int64 `json:"lifelines"`
	// MessagesPerMove is Messages over TasksMoved: what moving a task
	// cost in messages (0 when none moved).
	MessagesPerMove float64 `json:"messages_per_move"`
	// IdleShare is the share of the workers' time (P x Makespan) they
	// ran no task. Where the rest went (account.go): WorkShare running
	// the tasks' own work, MessageShare the CPU of the messages the
	// nodes sent and received (Model.Overhead each), so that IdleShare,
	// WorkShare and MessageShare sum to 1; StealShare is the part of
	// IdleShare a worker waited while its node had a request for work in
	// flight (the thieves' round trips), the rest of IdleShare is idle
	// with nothing asked (backing off, waiting on lifelines, or no work
	// left).
	IdleShare    float64 `json:"idle_share"`
	WorkShare    float64 `json:"work_share"`
	MessageShare float64 `json:"message_share"`
	StealShare   float64 `json:"steal_share"`
	// Prefetched are the tasks that answers to requests sent ahead of need
	// brought (fishing's low=N), and RanDry those requests a worker ran
	// out of work before: both 0 for a policy that does not ask ahead.
	Prefetched int64        `json:"prefetched"`
	RanDry     int64        `json:"ran_dry"`
	PerNode    []NodeResult `json:"per_node,omitempty"`
	Events     int64        `json:"events"`
	// Seconds is how long the simulation took to run, in real time.
	Seconds float64 `json:"sim_seconds"`
}

// NodeResult is one node's share of a run.
type NodeResult struct {
	Tasks          int64         `json:"tasks"`
	Inlined        int64         `json:"inlined"` // of Tasks, those run as calls
	LocalSteals    int64         `json:"local_steals"`
	Requests       int64         `json:"requests"`
	Lent           int64         `json:"lent"`
	Borrowed       int64         `json:"borrowed"`
	Messages       int64         `json:"messages"`
	CrossZone      int64         `json:"cross_zone_messages"` // of Messages, those to another zone
	Bytes          int64         `json:"bytes"`
	StatusMessages int64         `json:"status_messages"`
	Reruns         int64         `json:"reruns"`     // tasks lent to a node that died, run again here
	Prefetched     int64         `json:"prefetched"` // tasks borrowed ahead of need (Result.Prefetched)
	RanDry         int64         `json:"ran_dry"`    // requests ahead of need that came too late
	Returned       int64         `json:"returned"`   // borrowed tasks handed back unstarted as the node drained
	Refusals       int64         `json:"refusals"`   // answers to requests for work with no task
	Lifelines      int64         `json:"lifelines"`  // lifelines sent, apart from Requests
	Results        int64         `json:"results"`    // messages that took borrowed tasks' results home, one or more each
	Busy           time.Duration `json:"busy_ns"`
	Idle           time.Duration `json:"idle_ns"`
	// MessageCPU is the part of Busy that paid for messages, Stealing the
	// part of Idle with a request for work in flight (account.go).
	MessageCPU time.Duration `json:"message_cpu_ns"`
	Stealing   time.Duration `json:"stealing_ns"`
}

// prefetcher is a policy that asks for work ahead of need and counts how
// that went (fishing with a low-water mark).
type prefetcher interface {
	PrefetchStats() (tasks, ranDry int64)
}

// result sums the run up.
func (s *sim) result(took time.Duration) *Result {
	p := s.m.Nodes * s.m.Workers
	r := &Result{
		Workload: s.w.Name(), Scheduler: s.cfg.Sched.Name(), Nodes: s.m.Nodes, Workers: s.m.Workers,
		Makespan: s.now, Work: s.work, Span: s.span, Tasks: s.tasks, Events: s.events, Seconds: took.Seconds(),
	}
	r.LowerBound = max(s.work/time.Duration(p), s.span)
	r.GreedyBound = s.work/time.Duration(p) + s.span
	if s.now > 0 {
		r.Efficiency = float64(s.work) / (float64(p) * float64(s.now))
	}
	var idle, busy, msgCPU, stealing time.Duration
	for _, n := range s.nodes {
		c := n.counts
		n.acct.advance(s.now)
		c.MessageCPU, c.Stealing = n.acct.msgCPU, n.acct.stealing
		for i := range n.ws {
			w := &n.ws[i]
			// Close the stretch in progress at the end.
			if w.busy {
				w.busyT += s.now - w.since
			} else {
				w.idleT += s.now - w.since
			}
			c.Busy += w.busyT
			c.Idle += w.idleT
		}
		idle += c.Idle
		busy += c.Busy
		msgCPU += c.MessageCPU
		stealing += c.Stealing
		r.Inlined += c.Inlined
		r.Refusals += c.Refusals
		r.Results += c.Results
		r.Lifelines += c.Lifelines
		r.TasksMoved += c.Lent
		r.Messages += c.Messages
		r.CrossZone += c.CrossZone
		r.Bytes += c.Bytes
		r.StatusMessages += c.StatusMessages
		if pf, ok := n.pol.(prefetcher); ok {
			c.Prefetched, c.RanDry = pf.PrefetchStats()
			r.Prefetched += c.Prefetched
			r.RanDry += c.RanDry
		}
		r.PerNode = append(r.PerNode, c)
	}
	if s.now > 0 {
		all := float64(p) * float64(s.now)
		r.IdleShare = float64(idle) / all
		r.WorkShare = float64(busy-msgCPU) / all
		r.MessageShare = float64(msgCPU) / all
		r.StealShare = float64(stealing) / all
	}
	if r.TasksMoved > 0 {
		r.MessagesPerMove = float64(r.Messages) / float64(r.TasksMoved)
	}
	return r
}
