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

// inFlightMax is the most requests the node keeps outstanding now: the
// fixed MaxInFlight, or inFlightFor its peers.
func (s *Policy) inFlightMax() int {
	if s.p.MaxInFlight > 0 {
		return s.p.MaxInFlight
	}
	return inFlightFor(len(s.peers))
}

// inFlightFor is the default number of requests in flight on a cluster of
// peers other nodes.
func inFlightFor(peers int) int {
	return max(1, int(math.Round(math.Sqrt(float64(peers)))))
}
