package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/jobid"
	"github.com/tsys-go/tsys/internal/share"
)

// server is the node's part in the jobs of other roots: admitting a job
// or refusing it (startServing, admit, refuse), serving it in an engine
// of its own, and stopping it at its end (endServing, with the clock
// readings of answerClock), on a drain, or when its root is gone
// (dropServed), with a report to the root. Its methods run on a
// connection's reader (startServing), or, those that wait for the tasks
// running, on a goroutine of their own. It takes the job table's lock,
// then an engine's, and holds none while sending.
type server struct {
	n *Node
	// stopping counts the engines whose runs are stopping: their runtimes
	// are taken, though no engine has them.
	stopping atomic.Int32
}

// serving is the run of an engine's pool for a job of another root.
type serving struct {
	stop chan struct{}
	done chan servingEnd
}

// startServing begins work for another node's job, if this node's sharing
// policy admits it (jobRefused says why not).
func (sv *server) startServing(from clusterpolicy.NodeID, m *jobStart) {
	info := share.Job{ID: m.Job, Root: string(from), Began: m.Began, Min: int(m.MinNodes), Max: int(m.MaxNodes)}
	// Checked and claimed in one critical section: two roots' starts come
	// on two connections at once.
	sv.n.jobs.mu.Lock()
	if e, ok := sv.n.jobs.engines[m.Job]; ok {
		sv.n.jobs.mu.Unlock()
		// Its root invites it again: it is alive, whatever gossip said.
		e.rootIsBack()
		return
	}
	old, reason := sv.admit(info)
	if reason != "" {
		sv.n.jobs.mu.Unlock()
		sv.refuse(from, &jobRefused{Job: m.Job, Reason: reason})
		return
	}
	// After admit: a node that would not serve the job anyway (a client,
	// a draining node, one its sharing policy keeps for other jobs) says
	// why it would not, not which tasks it lacks.
	check := checkStart(sv.n.name, m, sv.n.cfg.AcceptBuilds)
	if check.reason != "" {
		sv.n.jobs.mu.Unlock()
		sv.refuse(from, &jobRefused{Job: m.Job, Reason: check.reason, Lacks: check.lacks, OtherBuild: check.otherBuild})
		return
	}
	for _, o := range old {
		delete(sv.n.jobs.engines, o.info.ID)
	}
	rt := sv.n.jobs.idleRuntimeLocked()
	e := newEngine(sv.n, info, nil, rt)
	e.rootWatch.addr = m.ReplyTo
	// s, not e.serving, from here on: once e is in n.engines, stopEngine
	// may take e.serving away under e.mu.
	s := &serving{stop: make(chan struct{}), done: make(chan servingEnd, 1)}
	e.serving = s
	serveCtx, failServing := context.WithCancelCause(context.Background())
	e.failServing = failServing
	sv.n.jobs.enterLocked(e)
	sv.n.jobs.mu.Unlock()
	// Not on this connection's reader: stopping waits for the tasks
	// running.
	go func() {
		for _, o := range old {
			if _, alive := sv.n.peers.addr(o.root()); alive {
				// Its root has moved on to a job of its own.
				sv.stopEngine(o)
			} else {
				// Its root is gone, perhaps only slow: as at the end
				// of RootGrace.
				sv.n.orphans.abandon(o)
			}
		}
	}()
	sv.n.netLog.Info("serving a job", "root", from, "job", jobid.ID(m.Job))
	if check.warning != "" {
		sv.n.netLog.Warn("serving another build", "root", from, "job", jobid.ID(m.Job), "why", check.warning)
	}
	e.pool.SetWorkSpan(m.MeasureWorkSpan)
	e.timeline.record(e.timeline.capFor(m.TimelineCap))
	sv.n.sharing.apply()
	e.event(e.policy.JobStarted)
	go func() {
		defer failServing(nil)
		if hook := beforeServe.Load(); hook != nil {
			(*hook)(e)
		}
		// A failure here reached the root as it happened (remote.Failed).
		st, err := e.pool.Serve(serveCtx, s.stop)
		if err != nil && !errors.As(err, new(*failedAtRoot)) {
			sv.n.log.Warn("a task of the job failed here", "err", err)
		}
		s.done <- servingEnd{report: e.report(st), timeline: e.timeline.encode()}
	}()
}

// beforeServe, when set, is called on the goroutine that serves a job
// just before its run begins: a test's seam into the window between the
// job entering the node's table (its messages are handled from then on)
// and the run's start. Nil outside tests.
var beforeServe atomic.Pointer[func(*engine)]

// refuse tells a job's root that this node will not serve the job, and
// why.
func (sv *server) refuse(root clusterpolicy.NodeID, m *jobRefused) {
	switch {
	case len(m.Lacks) > 0:
		sv.n.netLog.Warn("refusing a job whose tasks this binary lacks", "root", root, "job", jobid.ID(m.Job), "why", m.Reason)
	case m.OtherBuild:
		sv.n.netLog.Warn("refusing a job of another build of this program", "root", root, "job", jobid.ID(m.Job), "why", m.Reason)
	default:
		sv.n.netLog.Info("refusing a job", "root", root, "job", jobid.ID(m.Job), "why", m.Reason)
	}
	if err := sv.n.out.send(root, "", m, nil); err != nil {
		sv.n.netLog.Warn("could not refuse a job", "root", root, "err", err)
	}
}

// admit says why this node cannot serve job j now (empty: it can), and
// which jobs j replaces: those whose root is gone, and the root's own
// earlier job (a root runs one job at a time, so the old one is over even
// if its end did not arrive). n.jobs.mu held.
func (sv *server) admit(j share.Job) (replaced []*engine, why string) {
	if sv.n.draining.Load() {
		return nil, fmt.Sprintf("node %s is leaving the cluster", sv.n.name)
	}
	if sv.n.cfg.Client {
		// A client that served a job invited as it joined could not
		// then begin its own (BeginJob).
		return nil, fmt.Sprintf("node %s is a client (a run): it roots its own job and serves no other", sv.n.name)
	}
	var keep []share.Job
	for _, e := range sv.n.jobs.engines {
		if e.rooted != nil {
			return nil, fmt.Sprintf("node %s is the root of job %s; it serves no other job", sv.n.name, jobid.ID(e.info.ID))
		}
		_, alive := sv.n.peers.addr(e.root())
		if e.info.Root == j.Root || !alive {
			replaced = append(replaced, e)
			continue
		}
		keep = append(keep, e.info)
	}
	share.Sort(keep)
	if ok, why := sv.n.sharing.admits(j, keep); !ok {
		return nil, why
	}
	return replaced, ""
}

// stopEngine ends this node's part in a job of another root, drops what it
// still holds of it, and returns its report; ok is false when another
// caller stopped it (and reports).
func (sv *server) stopEngine(e *engine) (end servingEnd, ok bool) {
	sv.n.jobs.forget(e)
	e.mu.Lock()
	s := e.serving
	e.serving = nil
	e.mu.Unlock()
	e.lender.close()
	e.borrowed.clear()
	if s == nil {
		return servingEnd{}, false
	}
	sv.stopping.Add(1)
	defer sv.stopping.Add(-1)
	close(s.stop)
	end = <-s.done
	sv.n.jobs.release(e.rt)
	sv.n.sharing.apply()
	return end, true
}

// endServing answers the root's jobEnd with this node's report and
// timeline.
func (sv *server) endServing(from clusterpolicy.NodeID, job uint64) {
	e := sv.n.jobs.of(job)
	if e == nil || e.rooted != nil || e.root() != from {
		return
	}
	if end, ok := sv.stopEngine(e); ok {
		sv.sendReport(from, e.rootWatch.addr, job, end)
	}
}

// sendReport sends this node's part in a job to the job's root.
func (sv *server) sendReport(root clusterpolicy.NodeID, rootAddr string, job uint64, end servingEnd) {
	payload, _ := json.Marshal(end.report)
	rep := &jobReport{Job: job, Report: payload, Timeline: end.timeline}
	addr, err := sv.n.peers.addressOf(root, rootAddr)
	if err != nil {
		sv.n.log.Warn("the job's root is gone; the report is dropped", "root", root, "err", err)
		return
	}
	if err := sv.n.out.transmit(addr, rep, true, nil); err != nil {
		sv.n.log.Warn("could not report to the job's root", "root", root, "err", err)
	}
}

// dropServed ends this node's part in a job of another root that may
// still run: each borrowed task goes back to its lender first, and stays
// held until it is on its way, so that a lender's query meanwhile does not
// hear it is gone and run it again.
func (sv *server) dropServed(e *engine) {
	// The results held go first: their tasks are done.
	e.borrower.sendResults(e.borrowed.idle(time.Now()))
	for h, l := range e.borrowed.held() {
		e.borrower.handBack(l)
		e.borrowed.settled(h)
	}
	sv.stopEngine(e)
}

// servingEnd is what serving a job leaves: the node's report, and its
// timeline encoded (nil when it kept none).
type servingEnd struct {
	report   NodeReport
	timeline []byte
}
