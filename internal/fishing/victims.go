package fishing

import (
	"time"

	"github.com/tsys-go/tsys/internal/xorshift"
)

// victims chooses the peer a request goes to, by the rule of
// Params.Victim (doc.go, "Victims"). It keeps the random state of the
// choice, seeded from the node's name so that every node draws its own
// sequence, and the buffers it lists the candidates in, so that choosing
// allocates nothing.
type victims struct {
	rule    Victim
	rng     xorshift.State
	scratch []*peer // the candidates
	other   []*peer // ... of another zone (Zone)
}

// choose picks the peer to ask among peers, or nil, while flying
// requests are in flight, cross of them to another zone. The caller
// counts the request in flight.
func (v *victims) choose(now time.Time, peers []*peer, flying, cross int) *peer {
	c := v.candidates(now, peers, flying, cross)
	switch len(c) {
	case 0:
		return nil
	case 1:
		return c[0]
	}
	return c[v.rng.Below(len(c))]
}

// candidates lists the peers choose picks among, uniformly. The list is
// one of v's buffers: it lasts until the next call.
func (v *victims) candidates(now time.Time, peers []*peer, flying, cross int) []*peer {
	c := v.scratch[:0]
	switch v.rule {
	case Load:
		// The most loaded by the last reports, skipping those that
		// reported nothing ready; failing that, those never heard of;
		// failing that, any eligible peer. Reports are hints that lag
		// (gossip takes tens of milliseconds), and back-off already
		// bounds what asking an empty peer costs, so a stale "nothing
		// ready" must not keep a hungry node from fishing.
		best := 0
		for _, pr := range peers {
			if !pr.eligible(now) || !pr.reported || pr.ready <= 0 || pr.ready < best {
				continue
			}
			if pr.ready > best {
				best, c = pr.ready, c[:0]
			}
			c = append(c, pr)
		}
		if len(c) == 0 {
			c = appendEligible(c, peers, now, true)
		}
		if len(c) == 0 {
			c = appendEligible(c, peers, now, false)
		}
	case Zone:
		// Own zone first; one request to another zone at a time, sent
		// alongside the own-zone ones when there are slots for both.
		o := v.other[:0]
		sameFlying := flying - cross
		for _, pr := range peers {
			switch {
			case !pr.eligible(now):
			case pr.same:
				c = append(c, pr)
			case cross == 0:
				o = append(o, pr)
			}
		}
		v.scratch, v.other = c, o
		if len(o) > 0 && (len(c) == 0 || sameFlying > 0) {
			return o
		}
		return c
	default:
		c = appendEligible(c, peers, now, false)
	}
	v.scratch = c
	return c
}

// appendEligible appends to c the peers that may be asked now, only
// those never heard from if unheardOnly.
func appendEligible(c, peers []*peer, now time.Time, unheardOnly bool) []*peer {
	for _, pr := range peers {
		if pr.eligible(now) && !(unheardOnly && pr.reported) {
			c = append(c, pr)
		}
	}
	return c
}
