package cluster

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

// A borrower that holds a job's loans and says nothing may be dead, cut
// off, stopped, or only busy with them. Gossip tells the first three from
// the last only after its suspicion time (seconds on a LAN), and a cut or
// a pause shorter than that is waited out: the job waits for the results.
// So a lender watches each borrower holding its loans itself, as
// MapReduce's backup tasks and Spark's speculation do:
//
//   - A borrower says something (a result, a request, a report, an
//     answer) whenever it has something to say; one quiet for a quarter
//     of the limit below is asked about its loans (a loanQuery, its
//     probe), which a borrower that is there answers at once.
//   - The limit is a few times (backupMult) the time the job's borrowers
//     take to answer a probe, learnt from the answers (the slowest of
//     the last answerWindow), and never below backupFloor, so that a
//     quiet network, whose answers take a millisecond, does not make it a
//     hair trigger.
//   - A borrower silent for the limit has its loans started again here,
//     each once (a backup, backup.go): the first result completes the
//     task, and the ledger drops the other (ledger.go).
//
// silence is that decision for one job's lending side: the time, the
// loans and the answers in, the probes and backups out. It is pure (no locks, clocks or
// sends): the lender holds it under its lock and carries out what it
// returns (lender.watch).
type silence struct {
	answers answerTimes
	// probes are the borrowers asked whether they are there and not yet
	// heard from since.
	probes map[clusterpolicy.NodeID]probe
	// checked is when the last check ran.
	checked time.Time
	// stalls are this node's own last stalls, whose time beyond a quarter
	// of the limit is not counted as any borrower's silence.
	stalls stalls
}

// A probe is when a quiet borrower was first asked, and last.
type probe struct{ first, last time.Time }

// quietLoan is an open loan with no backup, for silence to weigh.
type quietLoan struct {
	id   uint64
	node clusterpolicy.NodeID
	// since is its borrower's last word about it: the loan's lending, or
	// its answer that it holds it.
	since time.Time
}

// The limit's terms (silence). A healthy borrower's silence is at most
// the quarter of the limit before its probe, a check's period and its
// answer; the floor keeps that well below the limit on a loaded machine,
// where an answer that takes a millisecond on a quiet one now and then
// may take hundreds (bench/README.md, "A node cut off for a few
// seconds", says what the floor costs a cut and what load it stood).
// The multiple keeps a slower network, whose answers it learns, as far
// from it.
const (
	backupFloor  = time.Second
	backupMult   = 3
	answerWindow = 32
)

func newSilence() *silence { return &silence{probes: map[clusterpolicy.NodeID]probe{}} }

// limit is how long a borrower holding loans may say nothing before its
// loans start again here.
func (s *silence) limit() time.Duration {
	return max(backupFloor, backupMult*s.answers.slowest())
}

// check decides at now, given the open loans without a backup and when
// each of their borrowers last said anything (heard), which borrowers to
// ask whether they are there and which loans to back up.
//
// A check that comes more than a quarter of the limit after the last
// ends a stall of this node's own (stopped, starved), and the borrowers'
// silence in it is this node's: of the stall only that quarter counts as
// silence, and not even that at the check that ends it, when the words
// the borrowers sent meanwhile may still wait unread. So a lender
// stalled once backs up nothing for its stall, and one on a starved
// machine, stalled again and again, still backs up a silent borrower,
// later.
func (s *silence) check(now time.Time, loans []quietLoan, heard map[clusterpolicy.NodeID]time.Time) (probes []clusterpolicy.NodeID, backups []uint64) {
	limit := s.limit()
	ask := limit / 4
	var unread time.Duration
	if !s.checked.IsZero() && now.Sub(s.checked) > ask {
		s.stalls.add(now, now.Sub(s.checked)-ask)
		unread = ask
	}
	s.checked = now
	holding := map[clusterpolicy.NodeID]bool{}
	for _, l := range loans {
		holding[l.node] = true
	}
	for node := range s.probes {
		if !holding[node] {
			// Its loans settled or were backed up: an answer now may
			// time a cut, not an answer.
			delete(s.probes, node)
		}
	}
	quiet := map[clusterpolicy.NodeID]bool{}
	for _, l := range loans {
		since := latest(l.since, heard[l.node])
		switch q := now.Sub(since) - s.stalls.after(since); {
		case q-unread >= limit:
			backups = append(backups, l.id)
			delete(s.probes, l.node) // its answer, should it come, would time a cut
		case q >= ask:
			quiet[l.node] = true
		}
	}
	for node := range quiet {
		p, asked := s.probes[node]
		if asked && now.Sub(p.last) < ask {
			continue
		}
		if !asked {
			p.first = now
		}
		p.last = now
		s.probes[node] = p
		probes = append(probes, node)
	}
	slices.Sort(probes)
	slices.Sort(backups)
	return probes, backups
}

// stalls are a node's last stallWindow stalls, oldest first: when each
// ended and how much of it is not silence.
type stalls []stall

type stall struct {
	end    time.Time
	excess time.Duration
}

// stallWindow bounds the stalls kept: a borrower silent across more of
// them was silent for many limits, even with each discounted.
const stallWindow = 64

func (ss *stalls) add(end time.Time, excess time.Duration) {
	if len(*ss) == stallWindow {
		*ss = slices.Delete(*ss, 0, 1)
	}
	*ss = append(*ss, stall{end: end, excess: excess})
}

// after is the time not counted as silence since since: each stall's
// excess, but no more of it than passed after since.
func (ss stalls) after(since time.Time) time.Duration {
	var d time.Duration
	for i := len(ss) - 1; i >= 0 && ss[i].end.After(since); i-- {
		d += min(ss[i].excess, ss[i].end.Sub(since))
	}
	return d
}

// latest is the latest of ts.
func latest(ts ...time.Time) time.Time {
	var l time.Time
	for _, t := range ts {
		if t.After(l) {
			l = t
		}
	}
	return l
}

// answered: node answered a question about its loans at now (a
// loanStatus); the answer to a probe times it.
func (s *silence) answered(node clusterpolicy.NodeID, now time.Time) {
	if p, ok := s.probes[node]; ok {
		s.answers.add(min(now.Sub(p.first), s.limit()))
		delete(s.probes, node)
	}
}

// answerTimes are the last answerWindow times borrowers took to answer a
// probe.
type answerTimes struct {
	ring [answerWindow]time.Duration
	n    int // samples taken, of which the ring keeps the last
}

func (a *answerTimes) add(d time.Duration) {
	a.ring[a.n%answerWindow] = d
	a.n++
}

// slowest is the slowest of the answers kept (0 before any). A borrower
// whose loans were all backed up is not timed (silence.check): its
// answer would time a cut.
func (a *answerTimes) slowest() time.Duration {
	return slices.Max(a.ring[:])
}

// wordBook is when each peer last sent this node a message over the
// transport, of any job or none: a borrower's silence is the time since
// (silence). The inbox writes it for every message that decodes; the
// lenders' checks read it. Safe for concurrent use, without a lock on
// the way of a message but for a peer's first.
type wordBook struct{ last sync.Map } // clusterpolicy.NodeID -> *atomic.Int64, Unix ns

// heard records a message from peer at now.
func (w *wordBook) heard(peer clusterpolicy.NodeID, now time.Time) {
	v, ok := w.last.Load(peer)
	if !ok {
		v, _ = w.last.LoadOrStore(peer, new(atomic.Int64))
	}
	v.(*atomic.Int64).Store(now.UnixNano())
}

// forget drops peer's entry unless a message came from it after before:
// the book would otherwise keep every name that ever spoke, and the
// clients of back-to-back jobs each take a new one. A message racing the
// drop may go unrecorded, which only makes its sender look silent since
// its loans were lent.
func (w *wordBook) forget(peer clusterpolicy.NodeID, before time.Time) {
	if v, ok := w.last.Load(peer); ok && v.(*atomic.Int64).Load() <= before.UnixNano() {
		w.last.CompareAndDelete(peer, v)
	}
}

// at is when peer's last message came (the zero time: none yet).
func (w *wordBook) at(peer clusterpolicy.NodeID) time.Time {
	v, ok := w.last.Load(peer)
	if !ok {
		return time.Time{}
	}
	return time.Unix(0, v.(*atomic.Int64).Load())
}
