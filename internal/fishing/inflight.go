package fishing

import "math"

// How many requests a hungry node keeps in flight (Params.MaxInFlight).
//
// A thief that asks one peer at a time finds work after as many round
// trips as it takes to hit a peer that has some. On two or three nodes
// that is the first, and a second request would mostly bring tasks the
// node's workers would have found at home a moment later. On many nodes,
// when the work lies with a few of them (UTS on binomial trees, and the
// end of any job), most peers a thief asks at random are as dry as it is:
// the thief's time goes in round trips to them, and the few nodes with
// work run out of tasks they have no one to give to. Asking k peers at
// once cuts that search k-fold for about the same number of requests per
// task found, since each is refused at once by a dry peer (StealRequest).
//
// The default grows with the square root of the number of peers: 1 for
// up to 2, 2 for 3 to 6, 3 for 7 to 12, 8 for 57 to 72, 32 for about
// 1,000. The simulator chose it: on UTS T3L at 0.1 ms, with 8 to 128
// nodes, the best fixed count grew about so, and on EP it changed
// nothing (bench/README.md, "Many thieves, few holders").
//
// That count is the most, kept while answers bring tasks. On a cluster
// far larger than its work (UTS T3, under half a second of work, on 512
// nodes), nearly every answer is a refusal: there is nothing to find, and
// more requests only pass the few thin chains of work from node to node
// at every spawn, each hop a round trip on the tree's longest path. So
// the count shrinks with the share of the answers to its recent requests
// that brought tasks: all of it while at least one answer in
// answeredScale does, one request when none do.

// With lifelines (lifeline.go), a starved node that finds nothing in
// Lifelines requests at random waits on its buddies rather than asking
// more: so while it is starved the default count is at most Lifelines,
// and it sends its attempts at random at once, rather than a round of
// requests of which all but Lifelines would come back after it went
// quiet, each an answer more for nothing.

// inFlightLimit is the most requests the node keeps outstanding.
type inFlightLimit struct {
	fixed int // Params.MaxInFlight; 0: auto
	// lifelines is Params.Lifelines: with lifelinesFor, the most of auto
	// while starved.
	lifelines int
	// answered is the share of recent answers that brought tasks, a
	// moving average. Until answers say otherwise, peers have work: 1.
	answered float64
}

// most is the most requests the node keeps outstanding now, among peers
// other nodes: the fixed MaxInFlight, or inFlightFor the peers scaled by
// the answers.
func (l *inFlightLimit) most(peers int) int {
	if l.fixed > 0 {
		return l.fixed
	}
	most := inFlightFor(peers)
	if n := lifelinesFor(l.lifelines, peers); n > 0 && l.starved() {
		most = min(most, n)
	}
	return max(1, min(most, int(math.Round(float64(most)*answeredScale*l.answered))))
}

// answeredScale: a node keeps its whole count in flight while at least
// one answer in answeredScale brings tasks, and fewer as answers bring
// fewer (bench/README.md, "Many thieves, few holders").
const answeredScale = 16

// answeredWindow is about how many of the latest answers the moving
// share of answers with tasks weighs.
const answeredWindow = 16

// starvedShare: while fewer of the recent answers than this bring tasks,
// the node is starved: most peers it asks have nothing, and with
// lifelines it waits on them rather than asking on (lifeline.go). Where
// answers bring tasks more often, asking on finds them sooner than
// waiting does (bench/README.md, "Lifelines").
const starvedShare = 1.0 / 8

// starved says that fewer than starvedShare of the recent answers
// brought tasks.
func (l *inFlightLimit) starved() bool { return l.answered < starvedShare }

// heard counts the answer to a request in flight, with tasks or not, in
// the moving share of answers that bring tasks.
func (l *inFlightLimit) heard(withTasks bool) {
	hit := 0.0
	if withTasks {
		hit = 1
	}
	l.answered += (hit - l.answered) / answeredWindow
}

// inFlightFor is the default number of requests in flight on a cluster of
// peers other nodes.
func inFlightFor(peers int) int {
	return max(1, int(math.Round(math.Sqrt(float64(peers)))))
}
