package cluster

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

// TestSilenceProbesThenBacksUp, on a hand clock checked every checkEvery:
// a borrower that said nothing since it was lent a loan is asked at the
// first check once a quarter of the limit has passed, again a quarter
// later while it says nothing, and its loan is backed up at the first
// check a full limit after its last word, not before; a loan lent to it
// later waits a limit of its own.
func TestSilenceProbesThenBacksUp(t *testing.T) {
	s := newSilence()
	t0 := time.Unix(1000, 0)
	limit := s.limit()
	if limit != backupFloor {
		t.Fatalf("limit %v before any answer, want the floor %v", limit, backupFloor)
	}
	const later = 800 * time.Millisecond // when loan 2 is lent
	loans := []quietLoan{{id: 1, node: "b", since: t0}}
	heard := map[clusterpolicy.NodeID]time.Time{"b": t0.Add(-time.Second)} // it asked, then was lent
	var probed []time.Duration
	backedUp := map[uint64]time.Duration{}
	for at := checkEvery; len(loans) > 0; at += checkEvery {
		now := t0.Add(at)
		if at == later {
			loans = append(loans, quietLoan{id: 2, node: "b", since: now}) // lent again, unasked (a push)
		}
		probes, backups := s.check(now, loans, heard)
		if len(probes) > 0 {
			probed = append(probed, at)
		}
		for _, id := range backups {
			backedUp[id] = at
			loans = slices.DeleteFunc(loans, func(l quietLoan) bool { return l.id == id })
		}
		if at > 3*limit {
			t.Fatalf("not backed up within %v: %v", at, backedUp)
		}
	}
	// The first check at or after the loan's lending plus the limit.
	for id, lent := range map[uint64]time.Duration{1: 0, 2: later} {
		if at := backedUp[id]; at < lent+limit || at >= lent+limit+checkEvery {
			t.Errorf("loan %d lent at %v backed up at %v, want the first check from %v", id, lent, at, lent+limit)
		}
	}
	// Until loan 1's backup, which asks anew about loan 2.
	probed = slices.DeleteFunc(probed, func(at time.Duration) bool { return at >= backedUp[1] })
	ask := limit / 4
	if len(probed) < 3 || probed[0] < ask || probed[0] >= ask+checkEvery {
		t.Fatalf("probed at %v: want the first at the first check from %v", probed, ask)
	}
	for i := 1; i < len(probed); i++ {
		if gap := probed[i] - probed[i-1]; gap < ask || gap >= ask+checkEvery {
			t.Errorf("probed at %v: want each a quarter of the limit (%v) after the last, at the first check", probed, ask)
		}
	}
}

// TestSilenceSparesBorrowersThatAnswer: borrowers that answer every probe
// within half the limit, checked at random moments as a loaded tick
// checks, are never backed up, over minutes of loans coming and going;
// one that then goes silent is backed up within a check of a limit after
// its last word, and never before. The limit grows with slow answers and
// stays at the floor with quick ones.
func TestSilenceSparesBorrowersThatAnswer(t *testing.T) {
	nodes := []clusterpolicy.NodeID{"a", "b", "c"}
	for seed := range uint64(50) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 50))
			s := newSilence()
			now := time.Unix(1000, 0)
			heard := map[clusterpolicy.NodeID]time.Time{}
			answerAt := map[clusterpolicy.NodeID]time.Time{} // a probe's answer on its way
			slowest := 1 + time.Duration(r.Int64N(int64(backupFloor/2)))
			var loans []quietLoan
			var nextID uint64
			silent := clusterpolicy.NodeID("")
			var silentSince time.Time
			for step := range 3000 {
				// A loaded tick: checks between 20 ms and a quarter of the
				// floor apart (a longer gap is a stall of its own).
				now = now.Add(20*time.Millisecond + time.Duration(r.Int64N(int64(backupFloor/4-20*time.Millisecond))))
				for node, at := range answerAt {
					if !now.Before(at) {
						heard[node] = latest(heard[node], at)
						s.answered(node, at)
						delete(answerAt, node)
					}
				}
				switch {
				case r.IntN(10) == 0: // a loan lent, on the borrower's request
					node := nodes[r.IntN(len(nodes))]
					if node == silent {
						break
					}
					nextID++
					heard[node] = now
					loans = append(loans, quietLoan{id: nextID, node: node, since: now})
				case r.IntN(10) == 0 && len(loans) > 0: // a result comes home
					i := r.IntN(len(loans))
					if loans[i].node == silent {
						break
					}
					heard[loans[i].node] = now
					loans = slices.Delete(loans, i, i+1)
				}
				if step == 2000 && len(loans) > 0 {
					// From now on it says nothing: no answer, no result,
					// no request.
					silent = loans[0].node
					silentSince = heard[silent]
					delete(answerAt, silent)
				}
				limit := s.limit()
				probes, backups := s.check(now, loans, heard)
				if m := s.answers.slowest(); m > slowest {
					t.Fatalf("step %d: learnt %v, slowest %v; %v", step, m, slowest, s.answers.ring)
				}
				for _, node := range probes {
					if _, asked := answerAt[node]; !asked && node != silent {
						answerAt[node] = now.Add(1 + time.Duration(r.Int64N(int64(slowest))))
					}
				}
				for _, id := range backups {
					i := slices.IndexFunc(loans, func(l quietLoan) bool { return l.id == id })
					if loans[i].node != silent {
						t.Fatalf("step %d: backed up loan %d of %s, which answers within %v (limit %v)", step, id, loans[i].node, slowest, limit)
					}
					if since := now.Sub(latest(silentSince, loans[i].since)); since < limit {
						t.Fatalf("step %d: backed up %s's loan after %v of silence, limit %v", step, silent, since, limit)
					}
					loans = slices.Delete(loans, i, i+1)
				}
				if silent != "" && len(backups) == 0 {
					for _, l := range loans {
						if since := now.Sub(latest(silentSince, l.since)); l.node == silent && since >= limit+backupFloor/4 {
							t.Fatalf("step %d: %s silent for %v holds loan %d, limit %v", step, silent, since, l.id, limit)
						}
					}
				}
			}
			if got, want := s.limit(), max(backupFloor, backupMult*slowest); got > want {
				t.Errorf("limit %v with answers up to %v, want at most %v", got, slowest, want)
			}
		})
	}
}

// TestSilenceAfterAStallOfItsOwn: a lender whose checks stop for seconds
// (stopped, starved) finds every borrower's last word seconds old, but
// may not have read the words waiting for it: it backs up nothing then,
// and counts a quarter of the limit of the stall as silence: a borrower
// silent from before it is backed up at the first check at which its
// silence, the rest of the stall left out, reaches the limit.
func TestSilenceAfterAStallOfItsOwn(t *testing.T) {
	s := newSilence()
	t0 := time.Unix(1000, 0)
	limit, ask := s.limit(), s.limit()/4
	loans := []quietLoan{{id: 1, node: "b", since: t0}}
	heard := map[clusterpolicy.NodeID]time.Time{"b": t0}
	s.check(t0.Add(checkEvery), loans, heard)
	resumed := t0.Add(5 * time.Second)
	probes, backups := s.check(resumed, loans, heard)
	if len(backups) != 0 {
		t.Fatalf("backed up %v at the first check after a stall of its own", backups)
	}
	if !slices.Equal(probes, []clusterpolicy.NodeID{"b"}) {
		t.Errorf("asked %v at the first check after a stall, want [b]", probes)
	}
	// Silent for checkEvery before the stall and ask of it.
	due := resumed.Add(limit - checkEvery - ask)
	for now := resumed.Add(checkEvery); ; now = now.Add(checkEvery) {
		_, backups := s.check(now, loans, heard)
		if now.Before(due) && len(backups) != 0 {
			t.Fatalf("backed up %v %v after a stall, due %v after", backups, now.Sub(resumed), due.Sub(resumed))
		}
		if !now.Before(due) {
			if !slices.Equal(backups, []uint64{1}) {
				t.Errorf("backed up %v %v after a stall, want [1] at the first check from %v after", backups, now.Sub(resumed), due.Sub(resumed))
			}
			break
		}
	}
}

// TestSilenceOnAStarvedLender: a lender that runs a fifth of the time,
// so that every check ends a stall, backs up nothing of borrowers that
// answer as soon as it runs, and still backs up a silent one, within a
// few limits.
func TestSilenceOnAStarvedLender(t *testing.T) {
	s := newSilence()
	t0 := time.Unix(1000, 0)
	limit := s.limit()
	const every = 500 * time.Millisecond // each check stalled 400 ms
	loans := []quietLoan{{id: 1, node: "a", since: t0}, {id: 2, node: "b", since: t0}}
	heard := map[clusterpolicy.NodeID]time.Time{"a": t0, "b": t0}
	for now := t0.Add(every); ; now = now.Add(every) {
		// a's word of the last stall, read as the lender ran.
		heard["a"] = now.Add(-every + every/5)
		_, backups := s.check(now, loans, heard)
		if slices.Contains(backups, 1) {
			t.Fatalf("backed up the loan of a borrower that speaks every %v, %v in", every, now.Sub(t0))
		}
		if slices.Equal(backups, []uint64{2}) {
			if took := now.Sub(t0); took < limit || took > 3*limit {
				t.Errorf("backed up the silent borrower's loan %v in, want between a limit (%v) and three", took, limit)
			}
			return
		}
		if now.Sub(t0) > 10*limit {
			t.Fatalf("the silent borrower's loan not backed up in %v", now.Sub(t0))
		}
	}
}

// TestSilenceLearnsAnswers: the limit is backupMult times the slowest of
// the last answerWindow answers, never below the floor; an answer of a
// borrower whose loans were all backed up (a cut's end) is not learnt.
func TestSilenceLearnsAnswers(t *testing.T) {
	s := newSilence()
	t0 := time.Unix(1000, 0)
	now := t0
	// answer has b asked (quiet a quarter of the limit) and answer after d.
	answer := func(d time.Duration) {
		t.Helper()
		loans := []quietLoan{{id: 1, node: "b", since: now}}
		heard := map[clusterpolicy.NodeID]time.Time{"b": now}
		ask := s.limit() / 4
		for at := now.Add(checkEvery); ; at = at.Add(checkEvery) {
			if probes, _ := s.check(at, loans, heard); len(probes) > 0 {
				if at.Sub(now) < ask {
					t.Fatalf("asked after %v, before a quarter of the limit %v", at.Sub(now), s.limit())
				}
				now = at.Add(d)
				heard["b"] = now
				s.answered("b", now)
				return
			}
		}
	}
	answer(time.Millisecond)
	if got := s.limit(); got != backupFloor {
		t.Errorf("limit %v after a quick answer, want the floor %v", got, backupFloor)
	}
	answer(600 * time.Millisecond)
	if got, want := s.limit(), backupMult*600*time.Millisecond; got != want {
		t.Errorf("limit %v after a 600 ms answer, want %v", got, want)
	}
	for range answerWindow {
		answer(time.Millisecond)
	}
	if got := s.limit(); got != backupFloor {
		t.Errorf("limit %v once the slow answer aged out, want the floor %v", got, backupFloor)
	}
	// A borrower asked, then backed up: its answer comes after the cut.
	loans := []quietLoan{{id: 2, node: "c", since: now}}
	heard := map[clusterpolicy.NodeID]time.Time{"c": now}
	for at := now; ; at = at.Add(checkEvery) {
		if _, backups := s.check(at, loans, heard); len(backups) > 0 {
			now = at
			break
		}
	}
	s.check(now.Add(5*time.Second), nil, map[clusterpolicy.NodeID]time.Time{"c": now.Add(5 * time.Second)})
	s.answered("c", now.Add(5*time.Second))
	if got := s.limit(); got != backupFloor {
		t.Errorf("limit %v after a backed-up borrower's late answer, want the floor %v", got, backupFloor)
	}
}

// TestWordBookForgets: a peer's word is forgotten once it is gone, unless
// it spoke again after: a name back in the cluster keeps its word.
func TestWordBookForgets(t *testing.T) {
	var w wordBook
	t0 := time.Unix(1000, 0)
	w.heard("gone", t0)
	w.heard("back", t0.Add(time.Second))
	w.forget("gone", t0)
	w.forget("back", t0)
	w.forget("never", t0)
	if !w.at("gone").IsZero() {
		t.Errorf("a peer gone since %v is still heard at %v", t0, w.at("gone"))
	}
	if got := w.at("back"); !got.Equal(t0.Add(time.Second)) {
		t.Errorf("a peer that spoke after it left is heard at %v, want %v", got, t0.Add(time.Second))
	}
	n := 0
	w.last.Range(func(any, any) bool { n++; return true })
	if n != 1 {
		t.Errorf("the book keeps %d peers, want 1", n)
	}
}
