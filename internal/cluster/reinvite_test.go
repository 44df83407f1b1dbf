package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/net/membership"
)

// presence is the next jobPresence p receives for job, within 30 s.
func (p *barePeer) presence(job uint64, what string) *jobPresence {
	p.t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case m := <-p.presences:
			if m.Job == job {
				return m
			}
		case <-timeout:
			p.t.Fatalf("no word of whether the node takes part in job %x: %s", job, what)
			return nil
		}
	}
}

// TestNodeTellsARootGossipDoesNotList: a node that serves a job whose root
// gossip does not list (it holds it dead after a cut; here, a bare peer
// gossip never brought) tells the root all the same that it takes part,
// and tells it again when the root invites it again: a root waiting for
// its least nodes counts on that word, whatever gossip says of it.
func TestNodeTellsARootGossipDoesNotList(t *testing.T) {
	node := testNode(t, Config{})
	root := newBarePeer(t, "root")
	const job = 97
	root.send(node, &jobStart{Job: job, ReplyTo: root.addr()})
	if m := root.presence(job, "after the invitation"); !m.Active {
		t.Fatalf("the node says it does not take part in the job: %+v", m)
	}
	root.send(node, &jobStart{Job: job, ReplyTo: root.addr()})
	if m := root.presence(job, "after a second invitation"); !m.Active {
		t.Fatalf("the node says it does not take part in the job: %+v", m)
	}
}

// TestRootInvitesASilentNodeAgain: a root that has not heard whether a
// member takes part in its job invites it again after reinviteAfter, so
// a job that needs the node begins once it answers, though it ignored the
// first invitation (as if it, or its answer, were lost).
func TestRootInvitesASilentNodeAgain(t *testing.T) {
	root := testNode(t, Config{})
	member := newBarePeer(t, "member")
	root.peers.joined("member", membership.Meta{Transport: member.addr(), Scheduler: root.schedulerName, Share: root.sharing.policy.Name()}, false)
	job, err := root.BeginJob(JobOptions{MinNodes: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		root.peers.left("member") // not waited for at the end
		root.EndJob(job)
	}()
	first := await[*jobStart](member, "the invitation")
	// Not before reinviteAfter, on a hand clock.
	invited := invitedAt(job, "member")
	job.reinviteSilent(invited.Add(reinviteAfter / 2))
	if at := invitedAt(job, "member"); !at.Equal(invited) {
		t.Fatalf("invited again %v after the first invitation: want reinviteAfter (%v)", at.Sub(invited), reinviteAfter)
	}
	// The node's tick invites it again.
	again := await[*jobStart](member, "a second invitation")
	if again.Job != first.Job || again.Job != job.ID {
		t.Fatalf("invitations to jobs %x and %x, want %x", first.Job, again.Job, job.ID)
	}
	member.send(root, &jobPresence{Job: job.ID, Active: true})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := root.AwaitNodes(ctx, job, nil); err != nil {
		t.Fatalf("the job did not get the node that answered: %v", err)
	}
	// Heard from, it is not invited again.
	last := invitedAt(job, "member")
	job.reinviteSilent(last.Add(10 * reinviteAfter))
	if at := invitedAt(job, "member"); !at.Equal(last) {
		t.Fatal("a node that said it takes part was invited again")
	}
}

// invitedAt is when job last invited node id.
func invitedAt(job *Job, id clusterpolicy.NodeID) time.Time {
	job.e.mu.Lock()
	defer job.e.mu.Unlock()
	return job.invitedAt[id]
}
