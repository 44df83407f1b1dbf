package fishing

import (
	"slices"
	"strings"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

// Lifelines (Params.Lifelines; X10's GLB, Saraswat et al., PPoPP 2011).
// On many nodes, when the work lies with a few of them, most thieves ask
// peers as dry as they are, and each refusal costs a message at either
// end: so many of them that they take more of the nodes' time than the
// work (bench/README.md, "Many thieves, few holders"). So a hungry node whose requests at random came back empty
// Lifelines times in a row, while it is starved (fewer than one in 8 of
// its recent answers brought tasks: inflight.go), stops asking at random:
// it is quiet; while starved, it sends at most Lifelines at once. It sends
// a lifeline (clusterpolicy.Lifeline) to each of its buddies, a few
// nodes of a low-degree graph over the members, and waits. A node that
// holds a lifeline gives the waiting node work when it has some: at
// once if it has, else at its next push (Pushed), however long that
// takes, even while every worker of it waits. A quiet node costs no
// message more until work comes; work that reaches any node flows on to
// the quiet nodes that wait on it, and from them to those that wait on
// them, so that it reaches every node in a few hops.
//
// The graph: the members sorted by name, a node at place i among P; its
// buddies are the members at i+1, i+2, i+4, ... (mod P), fewer than P
// places on: ceil(log2 P) of them, every node is the buddy of as many,
// and any node reaches any other in at most log2 P hops. It is worked out
// anew after a member joins or leaves. Nodes need not agree on it: a
// lifeline is a request, and its holder gives to whoever sent one.
//
// A lifeline is answered once. Tasks that come, from any peer, end the
// quiet: the node asks at random again when it runs dry, and sends
// lifelines again only to those of its buddies that hold none of its
// own. A node asks a peer that holds its lifeline nothing at random
// meanwhile (it will give when it can), and sends none to a peer it has
// a request in flight to. An answer to a lifeline without a task (its
// holder had none left to lend after all) ends the quiet too, so that a
// holder that cannot keep a lifeline costs a few requests at random
// before the next, never a flood.

// lifelines is a thief's side of them: whether the node is quiet, how
// many of its requests in a row came back empty, and its buddies.
type lifelines struct {
	after  int  // Params.Lifelines (lifelinesFor)
	failed int  // answers without tasks in a row
	quiet  bool // the node waits on its lifelines, asking nobody at random
	// buddies are the node's buddies in the graph; stale after a member
	// joins or leaves, until worked out again.
	buddies []*peer
	stale   bool
}

// refused counts an answer without tasks to a request at random, or its
// timeout: a node goes quiet after Lifelines of them in a row, among
// peers other nodes, if it may: it is hungry, and starved.
func (l *lifelines) refused(may bool, peers int) {
	n := lifelinesFor(l.after, peers)
	if n <= 0 {
		return
	}
	l.failed++
	if may && l.failed >= n {
		l.quiet = true
	}
}

// lifelinesFor is how many answers without tasks in a row make a node
// among peers other nodes wait on its lifelines, for Params.Lifelines
// param: param if it is set; 0 (never) if it is negative; by default
// (auto), autoLifelines on clusters of autoLifelinesFrom nodes or more.
func lifelinesFor(param, peers int) int {
	switch {
	case param > 0:
		return param
	case param == 0 && peers+1 >= autoLifelinesFrom:
		return autoLifelines
	}
	return 0
}

// Lifelines by default (Params.Lifelines = 0): on clusters of 256 nodes
// or more, after 2 answers without tasks. Below, thieves whose answers
// often bring tasks find work by asking on at least as soon, and each
// task a lifeline moves costs a result as any other; above, most of a
// cluster is dry most of the time, and asking on costs more messages
// than the work (bench/README.md, "Lifelines").
const (
	autoLifelines     = 2
	autoLifelinesFrom = 256
)

// fed: tasks came, or the node has work: it asks at random again when it
// runs dry.
func (l *lifelines) fed() { l.failed, l.quiet = 0, false }

// answered: pr answered this node's lifeline with n tasks. It holds it
// no more.
func (l *lifelines) answered(pr *peer, n int) {
	pr.lifeline = false
	if n == 0 {
		l.fed() // it could not keep it: ask at random, then send lifelines again
	}
}

// changed: a member joined or left; the graph is worked out again.
func (l *lifelines) changed() { l.stale, l.buddies = true, nil }

// gone: pr leaves; a lifeline it held is lost.
func (l *lifelines) gone(pr *peer) {
	pr.lifeline = false
	l.changed()
}

// of is the node's buddies among peers, self being its name.
func (l *lifelines) of(self clusterpolicy.NodeID, peers []*peer) []*peer {
	if l.stale || l.buddies == nil {
		l.buddies, l.stale = buddies(self, peers, l.buddies[:0]), false
	}
	return l.buddies
}

// buddies appends to out the buddies of self among peers: with the
// members sorted by name and self at place i of P, those at i+1, i+2,
// i+4, ... (mod P).
func buddies(self clusterpolicy.NodeID, peers []*peer, out []*peer) []*peer {
	sorted := slices.Clone(peers)
	slices.SortFunc(sorted, func(a, b *peer) int { return strings.Compare(string(a.id), string(b.id)) })
	at, _ := slices.BinarySearchFunc(sorted, self, func(p *peer, id clusterpolicy.NodeID) int {
		return strings.Compare(string(p.id), string(id))
	})
	members := len(sorted) + 1
	for step := 1; step < members; step *= 2 {
		place := (at + step) % members // never self's: step < members
		if place > at {
			place-- // sorted has no place for self
		}
		out = append(out, sorted[place])
	}
	return out
}

// lifelineTo records a lifeline sent to pr and returns the action.
func (s *Policy) lifelineTo(pr *peer) clusterpolicy.Action {
	pr.lifeline = true
	s.stats.Lifelines++
	return clusterpolicy.Action{Kind: clusterpolicy.Lifeline, Node: pr.id, Count: s.p.MaxTasksPerAnswer}
}

// waitOn sends the quiet node's lifeline to each buddy that holds none of
// it and has no request of it in flight.
func (s *Policy) waitOn(as []clusterpolicy.Action) []clusterpolicy.Action {
	for _, pr := range s.lifeline.of(s.self, s.peers) {
		if !pr.lifeline && !pr.inFlight {
			as = append(as, s.lifelineTo(pr))
		}
	}
	return as
}

// unsent reports whether a quiet node has a buddy to send a lifeline to.
func (s *Policy) unsent() bool {
	for _, pr := range s.lifeline.of(s.self, s.peers) {
		if !pr.lifeline && !pr.inFlight {
			return true
		}
	}
	return false
}

// LifelineRequest implements clusterpolicy.LifelineHolder: lend what a
// request would get now, else hold the lifeline until the node has tasks
// to give, with no time limit, even while every worker of it waits: its
// sender asks nobody else meanwhile. Either way the request shows that a
// peer wants work (demand.go).
func (s *Policy) LifelineRequest(now time.Time, from clusterpolicy.NodeID, want int, self clusterpolicy.Load) clusterpolicy.Action {
	a, batch := s.lender.lifeline(now, from, want, self)
	s.demand.asked(now, batch)
	s.settle(now)
	return a
}

// lifeline answers the lifeline of want tasks that from sent at now:
// lends at once what a request would get, else holds it (Defer).
func (l *lender) lifeline(now time.Time, from clusterpolicy.NodeID, want int, self clusterpolicy.Load) (clusterpolicy.Action, int) {
	a := l.askerOf(from)
	a.adapt(now, l.p)
	want = max(want, 1)
	if n := min(lend(self.Ready, l.batch(a, want), l.p), want); n > 0 {
		return l.give(now, from, n), a.batch
	}
	l.waiting = slices.DeleteFunc(l.waiting, func(d deferredRequest) bool { return d.from == from })
	l.waiting = append(l.waiting, deferredRequest{from: from, want: want, at: now})
	l.stats.Held++
	return clusterpolicy.Action{Kind: clusterpolicy.Defer, Node: from}, a.batch
}

// answerLifelines gives to the lifelines held, oldest first, from the
// ready tasks the node holds: to each what a request would get, while
// there are any.
func (l *lender) answerLifelines(now time.Time, ready int, as []clusterpolicy.Action) []clusterpolicy.Action {
	for len(l.waiting) > 0 {
		d := l.waiting[0]
		n := min(lend(ready, l.batch(l.askerOf(d.from), d.want), l.p), d.want)
		if n == 0 {
			break
		}
		as = append(as, l.give(now, d.from, n))
		l.stats.Pushes++
		ready -= n
		l.waiting = l.waiting[1:]
	}
	return as
}
