package fishing_test

import (
	"fmt"
	"time"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
	"github.com/tsys-go/tsys/internal/fishing"
)

// A node whose two workers wait, serving a job whose root has nothing to
// lend: each refusal puts the root in backoff, and NextDue says when the
// node's engine must tick the policy again; with idlebackoff the backoff
// doubles on past maxbackoff while the node stays idle.
func ExamplePolicy_NextDue() {
	p, err := fishing.ParseParams("maxbackoff=20ms,idlebackoff=1s")
	if err != nil {
		fmt.Println(err)
		return
	}
	s := fishing.New("b", "", p)
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	idle := clusterpolicy.Load{Workers: 2, Idle: 2}
	s.Membership(now, clusterpolicy.MemberEvent{Node: "root", Joined: true})
	now = now.Add(time.Second) // long after the join's demand hold
	var waits []time.Duration
	for range 12 {
		for _, a := range s.Tick(now, idle) {
			if a.Kind == clusterpolicy.Fish {
				s.StealReply(now, a.Node, 0) // the root has nothing to lend
			}
		}
		due := s.NextDue(now, idle)
		waits = append(waits, due.Sub(now))
		now = due
	}
	fmt.Println(waits)
	// Output:
	// [500µs 1ms 2ms 4ms 8ms 16ms 32ms 64ms 128ms 256ms 512ms 1s]
}
