package calibrate

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/apps/fib"
	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/tsys"
)

func TestSpawnCost(t *testing.T) {
	checkNoLeak(t)
	d, err := SpawnCost(context.Background(), forking)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("a spawn costs %v", d)
	// Loose: the race detector multiplies a spawn's cost, and a loaded
	// machine's caches stretch it further.
	if d <= 0 || d >= 100*time.Microsecond {
		t.Errorf("SpawnCost %v: want more than 0 and less than 100us", d)
	}
}

// TestSpawnForks checks the count SpawnCost divides by against the
// runtime's own: with inlining off every fork is a task.
func TestSpawnForks(t *testing.T) {
	for n, want := range map[int]int64{0: 0, 1: 0, 2: 1, 3: 2, 10: 88} {
		if got := spawnForks(n); got != want {
			t.Errorf("spawnForks(%d) = %d, want %d", n, got, want)
		}
	}
	rt := tsys.New(tsys.Workers(1), tsys.Inline(inline.Never()))
	_, st, err := tsys.Run(context.Background(), rt, fib.Forking, 15)
	if err != nil {
		t.Fatal(err)
	}
	if st.Spawns != 0 && (st.Spawns != spawnForks(15) || st.Inlined != 0) { // 0: built without counters
		t.Errorf("fib(15) with inlining off: %d spawns, %d inlined; want %d, 0", st.Spawns, st.Inlined, spawnForks(15))
	}
}

func TestSpawnCostCancelled(t *testing.T) {
	checkNoLeak(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := SpawnCost(ctx, forking)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "spawn cost") {
		t.Errorf("got %v, want a cancellation that names the spawn cost", err)
	}
	// Cancelled during a run: the run ends, and so does SpawnCost.
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(time.Millisecond, cancel)
	if _, err := spawnCost(ctx, forking, 1000); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "spawn cost") {
		t.Errorf("cancelled midway: got %v, want a cancellation that names the spawn cost", err)
	}
}
