package membership

import (
	"math"
	"time"
)

// DeadWithin is how long after a member stops answering (crashed, stopped,
// or cut off from the others) gossip declares it dead, at most, in a
// cluster of members nodes running cfg's timing, when the others can
// still reach one another. memberlist (its SWIM with Lifeguard) takes:
//
//   - until the member is probed: each node probes the others one per
//     ProbeInterval in a shuffled round, reshuffled each round, so a
//     member may wait up to 2 x (members-1) - 1 intervals for a given
//     node's probe, and the probe (direct, then indirect through others)
//     takes one interval more: 2 x (members-1) x ProbeInterval;
//   - then the suspicion timeout: SuspicionMult x max(1, log10(members))
//     x ProbeInterval once the SuspicionMult-2 other nodes memberlist
//     expects to confirm the suspicion have (it expects none below
//     SuspicionMult nodes); its doc's log10(members) alone understates
//     it below 10 members, where the max is 1. The confirmations come
//     within the probe time above, each node probing on its own.
//
// It is a worst case: in a large cluster the first few of many probers
// come much sooner than the last. So the LAN profile (1 s, 4) declares a member of 4 dead within 6 + 4 =
// 10 s, and one of 2 within 2 + 4 = 6 s. Two things stretch it, and the
// bound does not count them: a member whose suspicion fewer nodes confirm
// than memberlist expects (the others cut off from one another as well)
// waits up to SuspicionMaxTimeoutMult (6) times the suspicion timeout; and
// a node whose own probes go unanswered, as on a machine loaded so that
// its acks come late, stretches its probe interval up to
// AwarenessMaxMultiplier (8) times (Lifeguard's local health).
func (cfg Config) DeadWithin(members int) time.Duration {
	mlc := timedConfig(cfg, DefaultJoinTimeout)
	members = max(members, 2)
	probe := time.Duration(2*(members-1)) * mlc.ProbeInterval
	scale := math.Max(1, math.Log10(float64(members)))
	suspicion := time.Duration(float64(mlc.SuspicionMult) * scale * float64(mlc.ProbeInterval))
	return probe + suspicion
}
