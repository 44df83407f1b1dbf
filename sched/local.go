package sched

import "time"

// LocalStealer is the scheduler of a single node: an idle worker steals from
// random other workers of its node, trying each victim about twice before it
// parks. It knows of no other node; it is the base the cluster schedulers
// extend.
type LocalStealer struct {
	workers int
	// rngs holds one xorshift state per worker, each on its own cache line:
	// Idle runs concurrently on different workers.
	rngs []paddedRNG
}

type paddedRNG struct {
	x uint64
	_ [56]byte
}

// NewLocalStealer makes the policy for a node of the given number of workers.
func NewLocalStealer(workers int) *LocalStealer {
	s := &LocalStealer{workers: workers, rngs: make([]paddedRNG, workers)}
	for i := range s.rngs {
		s.rngs[i].x = uint64(i)*0x9E3779B97F4A7C15 + 1
	}
	return s
}

// Name implements Policy.
func (s *LocalStealer) Name() string { return "local" }

// Idle implements Policy: a random victim other than w, then Park after
// 2 x (workers-1) failed attempts in a row.
func (s *LocalStealer) Idle(w, attempt int) Action {
	if s.workers < 2 || attempt >= 2*(s.workers-1) {
		return Action{Kind: Park}
	}
	v := int(s.random(w) % uint64(s.workers-1))
	if v >= w {
		v++
	}
	return Action{Kind: StealLocal, Worker: v}
}

func (s *LocalStealer) random(w int) uint64 {
	x := s.rngs[w].x
	x ^= x >> 12
	x ^= x << 25
	x ^= x >> 27
	s.rngs[w].x = x
	return x * 2685821657736338717
}

// Spawned implements Policy.
func (s *LocalStealer) Spawned(int) []Action { return nil }

// StealRequest implements Policy: a single node lends nothing.
func (s *LocalStealer) StealRequest(from NodeID, _ int) Action {
	return Action{Kind: Refuse, Node: from}
}

// StealReply implements Policy.
func (s *LocalStealer) StealReply(NodeID, int) []Action { return nil }

// LoadReport implements Policy.
func (s *LocalStealer) LoadReport(NodeID, Load) []Action { return nil }

// Membership implements Policy.
func (s *LocalStealer) Membership(MemberEvent) []Action { return nil }

// Tick implements Policy.
func (s *LocalStealer) Tick(time.Time, Load) []Action { return nil }

// WantsSpawns implements Policy.
func (s *LocalStealer) WantsSpawns() bool { return false }
