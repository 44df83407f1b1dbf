package cluster

import (
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/net/membership"
)

// gossipInbox is what the node does on gossip's word, as inbox is on the
// transport's: memberlist's handler (onMember), and what a member's
// joining, coming back or leaving sets off in each job. Its methods run on
// memberlist's goroutine, so they only queue, act on what is at hand, or
// start a goroutine (inviting dials, stopping waits); none waits for
// work.
type gossipInbox struct{ n *Node }

// onMember hears membership changes. Each rouses a dozing tick once it
// has taken effect: a job's root that gossip no longer lists is timed by
// the tick (suspect.go), whether or not the job's policy hears of it.
func (g gossipInbox) onMember(ev membership.Event) {
	defer g.n.tick.rouse()
	id := clusterpolicy.NodeID(ev.Member.Name)
	if id == g.n.name {
		return
	}
	meta := ev.Member.Meta
	switch ev.Kind {
	case membership.Joined, membership.Updated:
		known := !g.n.peers.joined(id, meta, ev.Member.Leaving) // a member leaving is no newcomer
		if !known {
			g.n.orphans.memberBack(id)
		}
		for _, e := range g.n.jobs.list() {
			if !e.hears(id, meta) {
				continue
			}
			e.event(func(now time.Time) []clusterpolicy.Action {
				var acts []clusterpolicy.Action
				if !known {
					acts = e.policy.Membership(now, clusterpolicy.MemberEvent{Node: id, Zone: meta.Zone, Joined: true})
				}
				return append(acts, e.policy.LoadReport(now, id, meta.Load)...)
			})
		}
		if !known {
			// Not on memberlist's goroutine: inviting dials the newcomer.
			go g.inviteLate(id, meta, time.Now())
		}
	case membership.Left:
		g.n.peers.left(id)
		// Its word is weighed until the loans it held run here again
		// (memberLeft), and not after.
		left := time.Now()
		time.AfterFunc(g.n.cfg.LeaveGrace, func() { g.n.words.forget(id, left) })
		for _, e := range g.n.jobs.list() {
			g.memberLeft(e, id, meta, ev.Failed)
		}
	}
}

// memberLeft tells e's job that node id left or died.
func (g gossipInbox) memberLeft(e *engine, id clusterpolicy.NodeID, meta membership.Meta, failed bool) {
	var acts []clusterpolicy.Action
	if e.hears(id, meta) {
		e.mu.Lock()
		acts = e.policy.Membership(time.Now(), clusterpolicy.MemberEvent{Node: id, Zone: meta.Zone, Joined: false})
		e.advise()
		e.mu.Unlock()
	}
	if e.rooted != nil {
		e.rooted.peerGone(id)
	}
	if failed {
		e.lender.rerunLent(id, e.lender.lentTo(id), "gossip declared the borrower dead")
	} else {
		// A node that leaves gracefully sent its results before it
		// left, but gossip may bring the news first: give them time.
		// Only what it holds now: a node of the same name may come
		// back and borrow anew meanwhile.
		held := e.lender.lentTo(id)
		time.AfterFunc(g.n.cfg.LeaveGrace, func() { e.lender.rerunLent(id, held, "the borrower left holding them") })
	}
	if e.rooted == nil && e.root() == id {
		if failed {
			e.rootGone(time.Now(), meta.Transport)
		} else {
			// A root leaves gracefully after its job's end, so the job
			// is over; this node missed the end (gossip had it dead).
			g.n.log.Info("the job's root left the cluster; the job is over here", "root", id)
			go g.n.server.dropServed(e) // not on gossip's goroutine: stopping waits for the tasks running
			return
		}
	}
	e.act(acts)
}
