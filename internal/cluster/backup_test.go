package cluster

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/proctest"
	"github.com/tsys-go/tsys/internal/sched"
	"github.com/tsys-go/tsys/tsys"
)

// TestLedgerBackupProperties drives the ledger with random interleavings
// of loans, backups started, backups finishing, borrowers' results and
// hand-backs, deaths and answers saying a loan is gone, and checks after
// every step that:
//
//   - the invariant holds (check does not throw);
//   - a loan has at most one backup;
//   - no task is given back twice (completed, run here, or completed by
//     its backup), and none is run here while its backup runs;
//   - a backup's result completes its task exactly when no result of
//     its borrower came first;
//   - a late result is counted exactly when its loan was re-run here or
//     settled by its backup, and it is the first since;
//   - at the end, every task lent was given back once, or its loan, or
//     its backup, was still running when the job ended.
func TestLedgerBackupProperties(t *testing.T) {
	ledgerProperties(t, 300, 51, func(m *ledgerModel) {
		t, l := m.t, m.l
		running := map[*sched.Header]uint64{} // backups running, by loan
		backupOf := map[uint64]*sched.Header{}
		resulted := map[uint64]bool{} // its borrower's result completed it
		lateOK := map[uint64]bool{}   // a late result of it is still to be counted
		// ranHere checks that tasks the ledger gives back to run here
		// have no backup running, and notes their late results.
		ranHere := func(step int, why string, hs []*sched.Header) {
			for _, h := range hs {
				id := m.loan[h]
				if b := backupOf[id]; b != nil && running[b] == id {
					t.Fatalf("step %d (%s): loan %d runs here while its backup runs", step, why, id)
				}
				lateOK[id] = true
			}
			m.give(step, why, hs...)
		}
		// endedByBackup notes the loans that were open before an op and
		// are not now, without giving their tasks back (a backup runs).
		endedByBackup := func(before map[uint64]bool) {
			for id := range before {
				if _, open := l.open[id]; !open && backupOf[id] != nil && running[backupOf[id]] == id && !resulted[id] {
					lateOK[id] = true
				}
			}
		}
		openNow := func() map[uint64]bool {
			ids := map[uint64]bool{}
			for id := range l.open {
				ids[id] = true
			}
			return ids
		}
		for step := range 300 {
			switch m.r.IntN(10) {
			case 0, 1: // lend a few
				m.lendSome()
			case 2, 3: // start a backup of a loan (quiet() lists those that may have one)
				id, ok := m.pick()
				if !ok {
					continue
				}
				lo, open := l.open[id]
				canStart := open && lo.backup == nil
				if canStart != slices.ContainsFunc(l.quiet(), func(q quietLoan) bool { return q.id == id }) {
					t.Fatalf("step %d: loan %d open %v with backup %v, listed among the quiet ones: %v", step, id, open, open && lo.backup != nil, !canStart)
				}
				b := new(sched.Header)
				if got := l.startBackup(id, b); got != canStart {
					t.Fatalf("step %d: a backup of loan %d started %v, want %v", step, id, got, canStart)
				}
				if canStart {
					running[b], backupOf[id] = id, b
				}
			case 4: // a backup finishes
				var bs []*sched.Header
				for b := range running {
					bs = append(bs, b)
				}
				if len(bs) == 0 {
					continue
				}
				slices.SortFunc(bs, func(x, y *sched.Header) int { return int(running[x]) - int(running[y]) })
				b := bs[m.r.IntN(len(bs))]
				id := running[b]
				delete(running, b)
				_, wasOpen := l.open[id]
				h := l.backupDone(b)
				switch {
				case resulted[id] && h != nil:
					t.Fatalf("step %d: loan %d's backup completed it after its borrower's result", step, id)
				case !resulted[id] && h != m.lent[id].h:
					t.Fatalf("step %d: loan %d's backup, first, gave back %p, want its task", step, id, h)
				}
				if h != nil {
					m.give(step, "backup", h)
					if wasOpen {
						lateOK[id] = true
					}
				}
			case 5, 6: // a borrower's result, or the task handed back; now and then from another node
				id, ok := m.pick()
				if !ok {
					continue
				}
				from, how := m.word(id)
				lo, wasOpen := l.open[id]
				backedUp := wasOpen && lo.backup != nil
				h, s := l.settle(id, from, how)
				switch {
				case from == m.lent[id].node && wasOpen && how == handedBack && backedUp:
					if s != settledBackedUp || h != nil {
						t.Fatalf("step %d: a task handed back while its backup runs settled as %v", step, s)
					}
					lateOK[id] = true
				case from == m.lent[id].node && wasOpen:
					if s != settledOpen || h != m.lent[id].h {
						t.Fatalf("step %d: an open loan's word settled as %v", step, s)
					}
					if how == resultHome {
						resulted[id] = true
						m.give(step, "result", h)
					} else {
						ranHere(step, "handed back", []*sched.Header{h})
						delete(lateOK, id) // a hand-back leaves no result to come
					}
				case from == m.lent[id].node && lateOK[id] && how == resultHome:
					if s != settledLate || h != nil {
						t.Fatalf("step %d: loan %d's first late result settled as %v", step, id, s)
					}
					delete(lateOK, id)
					m.late++
				default:
					if s != settledStray || h != nil {
						t.Fatalf("step %d: a word for no loan of %s settled as %v", step, from, s)
					}
				}
			case 7: // gossip declares a node dead
				before := openNow()
				ranHere(step, "dead", l.rerunAll(l.lentTo(m.node())))
				endedByBackup(before)
			case 8: // a borrower says some of its loans are gone
				node := m.node()
				var gone []uint64
				for id, lt := range m.lent {
					if lt.node == node && m.r.IntN(2) == 0 {
						gone = append(gone, id)
					}
				}
				before := openNow()
				ranHere(step, "gone", l.heard(node, nil, gone, m.now))
				endedByBackup(before)
			case 9: // time passes: silence past loanSilence
				m.now = m.now.Add(time.Duration(m.r.IntN(4000)) * time.Millisecond)
				before := openNow()
				_, silent := l.due(m.now)
				for _, hs := range silent {
					ranHere(step, "silent", hs)
				}
				endedByBackup(before)
			}
			m.checkStep(step)
			if l.backedUp != int64(len(backupOf)) {
				t.Fatalf("step %d: %d backups counted, %d started", step, l.backedUp, len(backupOf))
			}
		}
		pending := m.openTasks() // open, or backed up and not yet back
		for _, id := range running {
			if !resulted[id] {
				pending[m.lent[id].h] = true
			}
		}
		l.close()
		l.check()
		for b := range running {
			if h := l.backupDone(b); h != nil {
				t.Fatal("a backup finishing after the job's end gave its task back")
			}
		}
		m.checkGivenOnce(pending)
	})
}

// backupLoan is the backup tests' setup: a root node of two workers (one
// waits for the lent task, the other runs its backup) that logs to logs,
// a job on it, and the job's loan 1 of double(21), task h, to peer, a
// bare transport named "silent", as if peer had asked for it.
type backupLoan struct {
	node *Node
	peer *barePeer
	job  *Job
	h    *sched.Header
	logs *proctest.LockedBuffer
}

// newBackupLoan starts the node and the peer, begins the job and opens
// its loan; the node closes when t ends.
func newBackupLoan(t *testing.T) backupLoan {
	t.Helper()
	b := backupLoan{logs: new(proctest.LockedBuffer)}
	n, err := Start(Config{Workers: 2, Inline: inline.Default(), Fast: true,
		Logger: slog.New(slog.NewTextHandler(b.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	b.node, b.peer = n, newBarePeer(t, "silent")
	if b.job, err = n.BeginJob(JobOptions{}); err != nil {
		t.Fatal(err)
	}
	kind, _ := sched.LookupKind(doubleKind)
	if b.h, err = kind.Codec.NewFromArg(encodeInt64(21)); err != nil {
		t.Fatal(err)
	}
	l := b.job.e.lender
	l.mu.Lock()
	l.ledger.lend(1, b.h, "silent", b.peer.addr(), time.Now())
	l.mu.Unlock()
	return b
}

// awaitTask runs a job's root task on n that waits for lent task h,
// done by its borrower's result or its backup, and returns its result.
func awaitTask(t *testing.T, n *Node, h *sched.Header) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	v, _, err := tsys.Do(ctx, (*tsys.Runtime)(n.Runtime()), func(c *tsys.Ctx) int64 {
		for !h.Done() && c.Context().Err() == nil {
			time.Sleep(time.Millisecond)
		}
		b, err := h.Kind().Codec.EncodeResult(h)
		if err != nil {
			t.Error(err)
			return 0
		}
		return decodeInt64(b)
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSilentBorrowerIsBackedUp: a borrower (a bare transport, named
// "silent") that takes a loan and then says nothing, not even to the
// lender's probes, has its loan started again on the lender, whose result
// completes the task; its own result, when it comes at last, is dropped
// and counted late, and the backup is counted.
func TestSilentBorrowerIsBackedUp(t *testing.T) {
	b := newBackupLoan(t)
	node, peer, job, h, logs := b.node, b.peer, b.job, b.h, b.logs
	if got := awaitTask(t, node, h); got != 42 {
		t.Fatalf("the backed-up task returned %d, want 42", got)
	}
	probes := 0
	for len(peer.replies) > 0 {
		if q, ok := (<-peer.replies).(*loanQuery); ok && slices.Equal(q.IDs, []uint64{1}) {
			probes++
		}
	}
	if probes == 0 {
		t.Error("the lender backed up a loan without asking its borrower about it first")
	}
	peer.send(node, &result{Job: job.ID, Task: 1, Value: encodeInt64(42)})
	waitUntil(t, "the borrower's late result is counted", func() bool { return job.e.counters().LateResults == 1 })
	if c := job.e.counters(); c.Backups != 1 || c.TasksRerun != 0 {
		t.Errorf("%d backups and %d re-runs counted, want 1 and 0", c.Backups, c.TasksRerun)
	}
	if !strings.Contains(logs.String(), "a borrower has said nothing for a while") {
		t.Errorf("the lender did not say it backed up a silent borrower's loan:\n%s", logs.String())
	}
}

// TestAnsweringBorrowerIsNotBackedUp: a borrower that holds a loan for
// several times the backup's limit, and answers each probe that it holds
// it, is never backed up: its result completes the task.
func TestAnsweringBorrowerIsNotBackedUp(t *testing.T) {
	b := newBackupLoan(t)
	node, peer, job, h, logs := b.node, b.peer, b.job, b.h, b.logs
	// It answers until it has held the loan three limits, then sends its
	// result.
	done := make(chan struct{})
	go func() {
		defer close(done)
		answered := 0
		for end := time.After(3 * backupFloor); ; {
			select {
			case m := <-peer.replies:
				if q, ok := m.(*loanQuery); ok {
					peer.send(node, &loanStatus{Job: job.ID, Held: q.IDs})
					answered++
				}
			case <-end:
				if answered == 0 {
					t.Error("the lender never asked the borrower about its loan")
				}
				peer.send(node, &result{Job: job.ID, Task: 1, Value: encodeInt64(42)})
				return
			}
		}
	}()
	if got := awaitTask(t, node, h); got != 42 {
		t.Fatalf("the task returned %d, want 42", got)
	}
	<-done
	if c := job.e.counters(); c.Backups != 0 || c.LateResults != 0 {
		t.Errorf("%d backups and %d late results for a borrower that answered, want 0:\n%s", c.Backups, c.LateResults, logs.String())
	}
}
