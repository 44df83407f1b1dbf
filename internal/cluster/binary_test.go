package cluster

import (
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/buildinfo"
	"github.com/tsys-go/tsys/internal/proctest"
	"github.com/tsys-go/tsys/internal/sched"
	"github.com/tsys-go/tsys/internal/typedesc"
)

// printedStart is a job's start from a root of this very build, listing
// double, the test binary's task that may cross nodes.
func printedStart(job uint64, replyTo string) *jobStart {
	tasks := []string{doubleKind}
	return &jobStart{Job: job, ReplyTo: replyTo, Tasks: tasks, Binary: "tester (example.com/tester)",
		Printed: true, Prints: printsOf(tasks), Build: buildinfo.Current()}
}

// otherBuild is a build of the same program that is not this one: a
// (devel) build, known by its build ID alone.
func otherBuild() buildinfo.Build {
	b := buildinfo.Current()
	b.Revision, b.Version, b.ID = "", "(devel)", "other-build-id/xyz"
	return b
}

// TestTaskTypesAreFingerprinted: a task that may cross carries its types'
// description, which another binary's types do not match.
func TestTaskTypesAreFingerprinted(t *testing.T) {
	k, ok := sched.LookupKind(doubleKind)
	if !ok || k.Types != "func(int64) int64" {
		t.Fatalf("double's types: %q", k.Types)
	}
	p := printsOf([]string{doubleKind})
	if len(p) != 1 || p[0].Hash != typedesc.Hash(k.Types) {
		t.Fatalf("fingerprints %+v", p)
	}
}

// TestNodeOfOtherTypesRefuses: a node whose binary gives a task of the
// job other types refuses the job at once, naming the task and both
// types, even when it accepts other builds.
func TestNodeOfOtherTypesRefuses(t *testing.T) {
	for _, accept := range []bool{false, true} {
		node := testNode(t, Config{AcceptBuilds: accept})
		root := newBarePeer(t, "other-types")
		const job = 93
		start := printedStart(job, root.addr())
		start.Prints = []taskPrint{{Types: "func(int32) int32", Hash: typedesc.Hash("func(int32) int32")}}
		start.AcceptBuilds = accept
		root.send(node, start)
		r, ok := root.next("a job whose task takes other types").(*jobRefused)
		if !ok || r.Job != job || !slices.Equal(r.Lacks, []string{doubleKind}) {
			t.Fatalf("accept %v: reply %+v: want a refusal of job %d naming %s", accept, r, job, doubleKind)
		}
		for _, want := range []string{"task " + doubleKind + " takes other types", "here func(int64) int64", "at the root func(int32) int32", "tester (example.com/tester)", "start every node from the job's program's own binary"} {
			if !strings.Contains(r.Reason, want) {
				t.Errorf("accept %v: reason %q does not say %q", accept, r.Reason, want)
			}
		}
		if node.jobs.of(job) != nil {
			t.Errorf("accept %v: the node serves a job it refused", accept)
		}
	}
}

// TestNodeOfOtherBuildRefuses: a node of another build refuses the job,
// naming both builds' IDs and the option; the root's word (the start's
// AcceptBuilds) or the node's own Config.AcceptBuilds has it serve the
// job, with one warning.
func TestNodeOfOtherBuildRefuses(t *testing.T) {
	node := testNode(t, Config{})
	root := newBarePeer(t, "other-build")
	start := printedStart(94, root.addr())
	start.Build = otherBuild()
	root.send(node, start)
	r, ok := root.next("a job of another build").(*jobRefused)
	if !ok || r.Job != 94 || !r.OtherBuild || len(r.Lacks) != 0 {
		t.Fatalf("reply %+v: want a refusal of job 94 for another build", r)
	}
	for _, want := range []string{"another build", "build ID other-build-id/xyz", buildinfo.Current().ID, "--accept-builds", "start every node"} {
		if !strings.Contains(r.Reason, want) {
			t.Errorf("reason %q does not say %q", r.Reason, want)
		}
	}
	if node.jobs.of(94) != nil {
		t.Error("the node serves a job it refused")
	}
	start = printedStart(95, root.addr())
	start.Build, start.AcceptBuilds = otherBuild(), true
	root.send(node, start)
	waitUntil(t, "the node serves another build's job on its root's word", func() bool { return node.jobs.of(95) != nil })

	var logs proctest.LockedBuffer
	accepting := startLogged(t, Config{AcceptBuilds: true}, &logs)
	start = printedStart(96, root.addr())
	start.Build = otherBuild()
	root.send(accepting, start)
	waitUntil(t, "a node that accepts other builds serves the job", func() bool { return accepting.jobs.of(96) != nil })
	// The warning follows the job's entry in the table.
	waitUntil(t, "the warning of another build", func() bool { return strings.Contains(logs.String(), "serving another build") })
	if got := strings.Count(logs.String(), "serving another build"); got != 1 || !strings.Contains(logs.String(), "other-build-id/xyz") {
		t.Errorf("%d warnings of another build, want 1 naming its ID:\n%s", got, logs.String())
	}
}

// TestOlderRootIsRefused: a start without fingerprints comes from an
// older tsys, whose types cannot be checked: refused, saying so; one
// listing no task at all has nothing to check.
func TestOlderRootIsRefused(t *testing.T) {
	node := testNode(t, Config{AcceptBuilds: true})
	root := newBarePeer(t, "older-root")
	root.send(node, &jobStart{Job: 97, ReplyTo: root.addr(), Tasks: []string{doubleKind}, Binary: "old (example.com/old)"})
	r, ok := root.next("a job of an older root").(*jobRefused)
	if !ok || !r.OtherBuild || !strings.Contains(r.Reason, "older tsys") {
		t.Fatalf("reply %+v: want a refusal naming an older tsys", r)
	}
	root.send(node, &jobStart{Job: 98, ReplyTo: root.addr()})
	waitUntil(t, "the node serves a job with no task to check", func() bool { return node.jobs.of(98) != nil })
}

// startLogged starts a node as testNode does, logging at Debug to w.
func startLogged(t *testing.T, cfg Config, w *proctest.LockedBuffer) *Node {
	t.Helper()
	cfg.Workers, cfg.Inline, cfg.Fast = 1, inline.Default(), true
	cfg.Logger = slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
	n, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

// TestUnrunnableLoansAreSaidOnce: a borrower that hands back loans it
// cannot run is warned of once, not once a loan, and is lent nothing
// more of the job; on the borrowing side, a lender whose tasks cannot
// run here is warned of once too, and every task goes back.
func TestUnrunnableLoansAreSaidOnce(t *testing.T) {
	var logs proctest.LockedBuffer
	node := startLogged(t, Config{}, &logs)
	job, err := node.BeginJob(JobOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l := job.e.lender
	kind, _ := sched.LookupKind(doubleKind)
	const loans = 20
	for id := range uint64(loans) {
		h, err := kind.Codec.NewFromArg(encodeInt64(int64(id)))
		if err != nil {
			t.Fatal(err)
		}
		l.mu.Lock()
		l.ledger.lend(1000+id, h, "mixed", "127.0.0.1:1", time.Now())
		l.mu.Unlock()
	}
	for id := range uint64(loans) {
		l.resultArrived("mixed", &result{Job: job.ID, Task: 1000 + id, Rerun: true, Err: `task "x": decoding its argument: want 12 bytes, got 24`})
	}
	// A task handed back unstarted by a node that does not serve the job
	// yet (a push before the job's start) says nothing of its binary.
	h, _ := kind.Codec.NewFromArg(encodeInt64(7))
	l.mu.Lock()
	l.ledger.lend(2000, h, "late", "127.0.0.1:2", time.Now())
	l.mu.Unlock()
	l.resultArrived("late", &result{Job: job.ID, Task: 2000, Rerun: true, Leaving: true, Err: "the job is not served here"})
	if l.cannotRun.has("late") {
		t.Error("a node that did not serve the job yet is lent nothing more")
	}
	if got := strings.Count(logs.String(), "level=WARN"); got != 1 {
		t.Errorf("%d warnings for %d loans handed back, want 1:\n%s", got, loans, logs.String())
	}
	if !l.cannotRun.has("mixed") {
		t.Error("the lender does not remember which borrower cannot run its tasks")
	}
	if recs := l.lend("mixed", "127.0.0.1:1", 5); len(recs) != 0 {
		t.Errorf("lent %d more tasks to a node that cannot run them", len(recs))
	}
	if rerun, _, _ := l.counts(); rerun != 0 {
		t.Errorf("%d loans counted as run again; handed back ones are not", rerun)
	}

	// The borrowing side: a node of the job lent tasks it cannot run.
	var blogs proctest.LockedBuffer
	borrower := startLogged(t, Config{}, &blogs)
	lender := newBarePeer(t, "lender-of-another-build")
	lender.send(borrower, printedStart(99, lender.addr()))
	waitUntil(t, "the borrower serves the job", func() bool { return borrower.jobs.of(99) != nil })
	for i := range uint64(3) {
		lender.send(borrower, &stealReply{Job: 99, Tasks: []taskRecord{{ID: 50 + 2*i, Kind: doubleKind, Arg: []byte{1}}, {ID: 51 + 2*i, Kind: doubleKind, Arg: []byte{2}}}, ReplyTo: lender.addr()})
	}
	for range 6 {
		if m, ok := lender.next("a task the borrower cannot decode").(*result); !ok || !m.Rerun {
			t.Fatalf("reply %+v: want the task handed back", m)
		}
	}
	if got := strings.Count(blogs.String(), "cannot run; is it running another binary"); got != 1 {
		t.Errorf("%d warnings for 6 tasks it cannot run, want 1:\n%s", got, blogs.String())
	}
}
