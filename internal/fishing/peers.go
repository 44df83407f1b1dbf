package fishing

import (
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

// peer is what the policy knows of another node: its zone, its last
// load, its backoff (backoff.go) and the request in flight to it, if any.
// The policy keeps one per member of the cluster (Policy.peers), and
// counts the requests in flight over them (Policy.flying, cross and
// prefetching; send and land keep the counts).
type peer struct {
	id        clusterpolicy.NodeID
	zone      string
	same      bool // same zone as this node
	ready     int  // Ready of its last load report
	reported  bool // a load report (or a refusal) was heard
	backoff   time.Duration
	refusedAt time.Time // its last refusal (or timeout)
	until     time.Time // not asked before this
	inFlight  bool
	sentAt    time.Time
	prefetch  bool // the request in flight went out ahead of need
	dry       bool // ... and a worker ran dry before its answer
	lifeline  bool // it holds a lifeline of this node (lifeline.go)
}

// eligible: pr may be asked now (the zone rule aside). A peer that holds
// the node's lifeline is not: it gives when it can.
func (pr *peer) eligible(now time.Time) bool {
	return !pr.inFlight && !pr.lifeline && !now.Before(pr.until)
}

// send records a request to pr and returns the action.
func (s *Policy) send(pr *peer, now time.Time) clusterpolicy.Action {
	pr.inFlight, pr.sentAt = true, now
	if s.hunger.ahead() {
		pr.prefetch = true
		s.prefetching++
		s.stats.Prefetches++
	}
	s.flying++
	if !pr.same {
		s.cross++
	}
	s.stats.Requests++
	return clusterpolicy.Action{Kind: clusterpolicy.Fish, Node: pr.id, Count: s.p.MaxTasksPerAnswer}
}

// land clears pr's request, if any: it was answered, timed out, or its
// peer left.
func (s *Policy) land(pr *peer) {
	if !pr.inFlight {
		return
	}
	pr.inFlight, pr.sentAt = false, time.Time{}
	if pr.prefetch {
		pr.prefetch, pr.dry = false, false
		s.prefetching--
	}
	s.flying--
	if !pr.same {
		s.cross--
	}
}
