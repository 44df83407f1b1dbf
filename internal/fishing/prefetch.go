package fishing

import "github.com/tsys-go/tsys/internal/clusterpolicy"

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

// lowWater reads the node's load on a Tick: whether it is low (every
// worker at work, fewer ready tasks than the mark), and whether it became
// hungry, which a prefetch in flight did not prevent.
func (s *Policy) lowWater(self clusterpolicy.Load) {
	wasHungry := s.hungry
	s.hungry = self.Idle > 0 && self.Ready == 0
	s.low = s.p.LowWater > 0 && self.Idle == 0 && self.Ready < s.p.LowWater
	if s.hungry && !wasHungry {
		s.ranDry()
	}
}

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

// wantsWork: the node fishes now, hungry or low.
func (s *Policy) wantsWork() bool { return s.hungry || s.low }

// markPrefetch records that the request just sent to pr went out ahead of
// need.
func (s *Policy) markPrefetch(pr *peer) {
	if s.hungry {
		return
	}
	pr.prefetch = true
	s.prefetching++
	s.stats.Prefetches++
}

// prefetchLanded counts what the answer to a prefetch brought, and ends
// the node's being low when it brought tasks: the next Tick says whether
// it still is.
func (s *Policy) prefetchLanded(pr *peer, n int) {
	if n > 0 {
		s.low = false
		if pr.prefetch {
			s.stats.Prefetched += int64(n)
		}
	}
}

// clearPrefetch forgets pr's request as a prefetch (it landed, timed out
// or its peer left).
func (s *Policy) clearPrefetch(pr *peer) {
	if pr.prefetch {
		pr.prefetch, pr.dry = false, false
		s.prefetching--
	}
}

// lendBatch is the most a request of want tasks from asker a may be lent:
// a's adaptive batch, or with Half the whole of want (lend then takes at
// most half of what is ready).
func (s *Policy) lendBatch(a *asker, want int) int {
	if s.p.Half {
		return want
	}
	return a.batch
}

// PrefetchStats reports the tasks borrowed ahead of need and the requests
// ahead of need a worker ran dry before (Stats.Prefetched, Stats.RanDry),
// for the simulator, which knows policies only by their interface.
func (s *Policy) PrefetchStats() (tasks, ranDry int64) {
	return s.stats.Prefetched, s.stats.RanDry
}
