package sched

// Stealing between the workers of one node. A worker whose deque is empty
// steals the oldest task of a random other worker. After localTries failed
// attempts in a row it counts the node as out of work for it: it tells the
// cluster (Remote.Hungry), then spins a little and parks (idle.go).

// localTries is how many steal attempts a worker makes at home before it
// counts the node as out of work: about two per other worker, so that a
// victim missed by bad luck is usually tried again.
func localTries(workers int) int { return 2 * (workers - 1) }

// stealLocal makes one steal attempt from a random other worker of the
// pool on behalf of w.
func (xs *crew) stealLocal(w *Worker) *Header {
	workers := xs.pool.workers
	v := w.rng.Below(len(workers) - 1)
	if v >= w.ID {
		v++
	}
	if counting {
		w.stealAttempts.Add(1)
	}
	h, _ := workers[v].dq.Steal()
	if h == nil {
		return nil
	}
	if counting {
		w.localSteals.Add(1)
		workers[v].stolenFrom.Add(1)
	}
	if tl := xs.pool.view.timeline.Load(); tl != nil {
		tl.recordSteal(w, v)
	}
	return h
}
