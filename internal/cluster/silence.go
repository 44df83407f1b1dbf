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
	// checked is when the last check ran; resumed the end of the last
	// stall of this node's own, from which every silence counts again.
	checked, resumed time.Time
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
// takes a third of a second, and a borrower's silence reached 0.7 s
// (bench/README.md, "A node cut off for a few seconds"). The multiple
// keeps a slower network, whose answers it learns, as far from it.
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
// ask whether they are there and which loans to back up. A check that
// comes long after the last (this node stalled: stopped, starved) gives
// every borrower a silence of its own from now: their words may still
// wait unread.
func (s *silence) check(now time.Time, loans []quietLoan, heard map[clusterpolicy.NodeID]time.Time) (probes []clusterpolicy.NodeID, backups []uint64) {
	limit := s.limit()
	ask := limit / 4
	if !s.checked.IsZero() && now.Sub(s.checked) > ask {
		s.resumed = now
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
		since := latest(l.since, heard[l.node], s.resumed)
		switch q := now.Sub(since); {
		case q >= limit:
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

// at is when peer's last message came (the zero time: none yet).
func (w *wordBook) at(peer clusterpolicy.NodeID) time.Time {
	v, ok := w.last.Load(peer)
	if !ok {
		return time.Time{}
	}
	return time.Unix(0, v.(*atomic.Int64).Load())
}
