package fishing

// Stats counts what a policy did.
type Stats struct {
	Requests  int64 // fishing requests sent (Fish actions)
	Successes int64 // replies that brought tasks
	Refusals  int64 // replies that brought none
	Timeouts  int64 // requests forgotten unanswered
	Dropped   int64 // requests dropped because the peer left
	TasksIn   int64 // tasks received
	Lent      int64 // requests answered with Give
	TasksOut  int64 // tasks promised in those answers
	Refused   int64 // requests answered with Refuse
	Deferred  int64 // requests answered with Defer
	// Prefetches are the requests sent ahead of need (LowWater),
	// Prefetched the tasks their answers brought, and RanDry those of
	// them still in flight when a worker ran out of work anyway.
	Prefetches int64
	Prefetched int64
	RanDry     int64
	// Lifelines are the lifelines this node sent (lifeline.go), Held
	// those of other nodes it held for want of tasks, and Pushes its
	// answers to those it held, given later.
	Lifelines int64
	Held      int64
	Pushes    int64
	InFlight  int // requests in flight now
}

// Stats reports the policy's counters. Like every method, it is called by
// the engine between events.
func (s *Policy) Stats() Stats {
	st := s.stats
	st.InFlight = s.flying
	return st
}
