package sched

import (
	"context"
	"strings"
	"testing"

	"github.com/tsys-go/tsys/inline"
)

// TestUnforkTakesBackWhatNobodyTook: a forked task still newest in the
// deque is taken back without running, the books as after a join (no fork
// left open, the spawn counted as inlined); a task taken back cannot be
// joined or taken back again; under work-span measurement Unfork declines,
// and the task is joined and runs.
func TestUnforkTakesBackWhatNobodyTook(t *testing.T) {
	p := NewPool(1, inline.Never())
	ran := false
	var took bool
	var again any
	st, err := p.Run(context.Background(), newFrame(func(x *Ctx) {
		x.Push(newFrame(func(*Ctx) { ran = true }))
		forked := x.Fast.Spawned
		took = x.Unfork(forked)
		func() {
			defer func() { again = recover() }()
			x.Unfork(forked)
		}()
	}))
	if err != nil || !took || ran {
		t.Fatalf("Run = %v; taken back %v, ran %v: want taken back, not run", err, took, ran)
	}
	if !strings.Contains(panicText(again), "taken back after its Join") {
		t.Errorf("a second Unfork: %v", again)
	}
	if st.TasksRun != 1 || st.Inlined != 1 || st.Spawns != 1 {
		t.Errorf("stats %+v: want the root run, one spawn, inlined", st)
	}

	p.SetWorkSpan(true)
	ran = false
	if _, err := p.Run(context.Background(), newFrame(func(x *Ctx) {
		x.Push(newFrame(func(*Ctx) { ran = true }))
		forked := x.Fast.Spawned
		if x.Unfork(forked) {
			t.Error("Unfork took a task back while work and span are measured")
		}
		x.JoinForked(forked)
	})); err != nil || !ran {
		t.Fatalf("measured: Run = %v, ran %v", err, ran)
	}
}

func panicText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}
