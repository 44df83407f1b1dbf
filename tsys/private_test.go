package tsys_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/tsys"
)

// The tasks of TestAnIdleWorkerGetsPrivateTasks, and what they saw.
var (
	hidden struct {
		rt               *tsys.Runtime
		busyStarted      chan struct{}
		busyGo           chan struct{}
		thirdStarted     chan struct{}
		mu               sync.Mutex
		ranOn            map[int]*tsys.Ctx
		rootCtx          *tsys.Ctx
		problem          string
		waitedForParking bool
	}
	hiddenRoot, hiddenBusy, hiddenChild *tsys.Task[int, int]
)

// waitFor polls cond until it holds or a generous deadline passes; it
// reports which. The tasks below wait for states of the other worker that
// no channel announces (parked), so they poll.
func waitFor(cond func() bool) bool {
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Microsecond)
	}
	return true
}

func init() {
	hiddenBusy = tsys.Register("test.hidden.busy", func(c *tsys.Ctx, _ int) int {
		close(hidden.busyStarted)
		<-hidden.busyGo
		return 0
	})
	hiddenChild = tsys.Register("test.hidden.child", func(c *tsys.Ctx, i int) int {
		hidden.mu.Lock()
		hidden.ranOn[i] = c
		hidden.mu.Unlock()
		switch i {
		case 3:
			close(hidden.thirdStarted)
		case 6:
			// The root runs this one, after its join made the others
			// public: wait here until the idle worker has taken the
			// oldest of them, so that the root does not run it itself
			// first.
			select {
			case <-hidden.thirdStarted:
			case <-time.After(10 * time.Second):
				hidden.mu.Lock()
				hidden.problem = "child 3 never started while the root ran child 6: the idle worker did not get it"
				hidden.mu.Unlock()
			}
		}
		return i
	})
	hiddenRoot = tsys.Register("test.hidden.root", func(c *tsys.Ctx, _ int) int {
		hidden.rootCtx = c
		busy := hiddenBusy.Fork(c, 0)
		<-hidden.busyStarted // the other worker took it, and is busy now
		var kids [6]tsys.Forked[int]
		for i := range kids {
			kids[i] = hiddenChild.Fork(c, i+1)
		}
		close(hidden.busyGo)
		// The other worker takes children 1 and 2, the public floor, then
		// finds nothing it can see and parks: 3 to 6 are private.
		hidden.waitedForParking = waitFor(func() bool { return tsys.Pool(hidden.rt).Port().Load().Idle == 1 })
		sum := 0
		for i := len(kids) - 1; i >= 0; i-- {
			sum += kids[i].Join(c)
		}
		return sum + busy.Join(c)
	})
}

// TestAnIdleWorkerGetsPrivateTasks: a worker keeps the tasks above its
// deque's public floor private while the other worker is busy; once the
// other worker has run dry and parked, the owner's next pop makes them
// public and wakes it, and it takes the oldest (sched.Executor.offerWork).
func TestAnIdleWorkerGetsPrivateTasks(t *testing.T) {
	checkNoLeak(t)
	hidden.rt = tsys.New(tsys.Workers(2), tsys.Inline(inline.Never()))
	hidden.busyStarted, hidden.busyGo, hidden.thirdStarted = make(chan struct{}), make(chan struct{}), make(chan struct{})
	hidden.ranOn = map[int]*tsys.Ctx{}
	got, _, err := tsys.Run(context.Background(), hidden.rt, hiddenRoot, 0)
	if err != nil || got != 21 {
		t.Fatalf("got %d, %v; want 21", got, err)
	}
	if !hidden.waitedForParking {
		t.Fatal("the other worker never parked after taking the public children")
	}
	if hidden.problem != "" {
		t.Fatal(hidden.problem)
	}
	for _, i := range []int{1, 2, 3} {
		if hidden.ranOn[i] == hidden.rootCtx {
			t.Errorf("child %d ran on the root's executor; want it taken by the other worker (ran on: %s)", i, describe(hidden.ranOn, hidden.rootCtx))
		}
	}
}

// describe says which children ran on the root's executor.
func describe(ranOn map[int]*tsys.Ctx, root *tsys.Ctx) string {
	s := ""
	for i := 1; i <= len(ranOn); i++ {
		where := "other"
		if ranOn[i] == root {
			where = "root"
		}
		s += fmt.Sprintf(" %d:%s", i, where)
	}
	return s
}
