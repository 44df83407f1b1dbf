package clusterpolicy

import "time"

// Answer is policy p's answer to node from's request for up to want
// tasks, self being this node's load now and lendable how many of its
// ready tasks it could give: a request is p's StealRequest; a lifeline
// (Lifeline) is a LifelineHolder's LifelineRequest, or Refuse from a
// policy that holds none. A lifeline is answered by lendable, not by
// self.Ready: a borrowed task waiting in the injected queue is not lent
// on, and a lifeline answered by one would go back empty where it could
// have waited. The engine and the simulator both answer with it, so that
// the simulator's lifelines are the runtime's.
func Answer(p Policy, now time.Time, from NodeID, want int, lifeline bool, self Load, lendable int) Action {
	if !lifeline {
		return p.StealRequest(now, from, want, self)
	}
	h, ok := p.(LifelineHolder)
	if !ok {
		return Action{Kind: Refuse, Node: from}
	}
	self.Ready = lendable
	return h.LifelineRequest(now, from, want, self)
}
