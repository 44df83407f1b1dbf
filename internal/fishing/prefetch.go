package fishing

// Asking ahead of need (Params.LowWater). A node that fishes only once a
// worker has nothing leaves that worker idle for a whole round trip, on
// every steal; in a tree whose work lies in long thin chains (UTS on
// binomial trees) a node runs dry again and again. With a low-water mark,
// a Tick that finds every worker at work and fewer ready tasks than the
// mark makes the node "low": it fishes as a hungry node does, so that the
// answer is on its way while the last tasks run. A request sent while low
// is a prefetch; the tasks its answer brings count as Prefetched, and if
// a worker runs dry before the answer comes, the request counts in
// RanDry: the mark was too low, or the round trip too long, for the work
// in hand.
//
// A Tick comes every few milliseconds, while in a binomial tree the work a
// borrowed task brings often lasts less: so the mark also sets the
// Advice's Reserve, and a worker that takes a borrowed task leaving fewer
// than the mark reports Hungry at once, while it runs the task. The
// engine cannot tell that Hungry from a dry worker's, so such a request
// counts as an ordinary one, not as a prefetch.

// ranDry counts the prefetches in flight when a worker of the node ran
// out of work: they came too late.
func (s *Policy) ranDry() {
	if s.prefetching == 0 {
		return
	}
	for _, pr := range s.peers {
		if pr.inFlight && pr.prefetch && !pr.dry {
			pr.dry = true
			s.stats.RanDry++
		}
	}
}

// PrefetchStats reports the tasks borrowed ahead of need and the requests
// ahead of need a worker ran dry before (Stats.Prefetched, Stats.RanDry),
// for the simulator, which knows policies only by their interface.
func (s *Policy) PrefetchStats() (tasks, ranDry int64) {
	return s.stats.Prefetched, s.stats.RanDry
}
