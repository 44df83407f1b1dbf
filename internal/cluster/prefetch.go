package cluster

// prefetcher is a policy that asks for work ahead of need and counts how
// that went (fishing with low=N): the tasks it borrowed so, and the
// requests a worker ran dry before all the same.
type prefetcher interface {
	PrefetchStats() (tasks, ranDry int64)
}

// notePrefetch copies the policy's prefetch counters where counters reads
// them without the lock, which a policy's methods need. e.mu is held.
func (e *engine) notePrefetch() {
	if pf, ok := e.policy.(prefetcher); ok {
		tasks, dry := pf.PrefetchStats()
		e.prefetched.Store(tasks)
		e.ranDry.Store(dry)
	}
}
