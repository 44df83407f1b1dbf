package tsys_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/tsys-go/tsys/tsys"
)

// sortInPlace sorts its argument's memory: right on one node, silently
// wrong on a node that gets a copy. Registered twice: as the program
// would by default (it stays home), and falsely declared ByValue.
func sortInPlace(c *tsys.Ctx, xs []int) int {
	slices.Sort(xs)
	return len(xs)
}

// sortCopy returns a sorted copy: a value in, a value out.
func sortCopy(c *tsys.Ctx, xs []int) []int {
	out := slices.Clone(xs)
	slices.Sort(out)
	return out
}

type withMap struct {
	N     int
	Inner struct{ Seen map[string]int }
}

var (
	inPlaceHome, inPlaceClaimed *tsys.Task[[]int, int]
	copyTask                    *tsys.Task[[]int, []int]
	mapTask2                    *tsys.Task[withMap, int]
)

func init() {
	inPlaceHome = tsys.Register("test.sort.home", sortInPlace)
	inPlaceClaimed = tsys.Register("test.sort.claimed", sortInPlace, tsys.ByValue())
	copyTask = tsys.Register("test.sort.copy", sortCopy, tsys.ByValue())
	mapTask2 = tsys.Register("test.withmap", func(c *tsys.Ctx, w withMap) int { return w.N })
}

// TestReferencesStayHome: a task whose types hold references may not
// cross nodes unless declared ByValue, and says why.
func TestReferencesStayHome(t *testing.T) {
	for _, c := range []struct {
		lendable bool
		why      string
	}{
		{inPlaceHome.Lendable(), errText(inPlaceHome.WhyLocal())},
		{mapTask2.Lendable(), errText(mapTask2.WhyLocal())},
	} {
		if c.lendable || !strings.Contains(c.why, "holds a reference") || !strings.Contains(c.why, "tsys.ByValue()") {
			t.Errorf("lendable %v, why %q: want a task kept home, with the reason and the remedy", c.lendable, c.why)
		}
	}
	if why := errText(mapTask2.WhyLocal()); !strings.Contains(why, "field Inner.Seen, map[string]int") {
		t.Errorf("why %q does not name the field", why)
	}
	if !inPlaceClaimed.Lendable() || !copyTask.Lendable() || inPlaceClaimed.WhyLocal() != nil {
		t.Error("a task declared ByValue must be lendable")
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestCheckCopiesCatchesSharedMemory: under CheckCopies, the task that
// sorts in place but claims ByValue gives its wrong answer on one node,
// as it would on a cluster; the one kept home, and the one that returns a
// copy, give the right one.
func TestCheckCopiesCatchesSharedMemory(t *testing.T) {
	for _, check := range []bool{false, true} {
		opts := []tsys.Option{tsys.Workers(2)}
		if check {
			opts = append(opts, tsys.CheckCopies())
		}
		rt := tsys.New(opts...)
		for _, task := range []*tsys.Task[[]int, int]{inPlaceHome, inPlaceClaimed} {
			xs := []int{3, 1, 2}
			if _, _, err := tsys.Run(context.Background(), rt, task, xs); err != nil {
				t.Fatal(err)
			}
			sorted := slices.IsSorted(xs)
			if want := !check || task == inPlaceHome; sorted != want {
				t.Errorf("check=%v %s: sorted %v, want %v", check, task.Name(), sorted, want)
			}
		}
		xs := []int{3, 1, 2}
		got, _, err := tsys.Run(context.Background(), rt, copyTask, xs)
		if err != nil || !slices.Equal(got, []int{1, 2, 3}) {
			t.Errorf("check=%v: sorted copy %v, %v", check, got, err)
		}
	}
}

// TestCheckCopiesFromTheEnvironment: TSYS_CHECK_COPIES=1 turns the check
// on for runtimes made without the option, so a program's own tests run
// with it unchanged.
func TestCheckCopiesFromTheEnvironment(t *testing.T) {
	t.Setenv("TSYS_CHECK_COPIES", "1")
	xs := []int{3, 1, 2}
	if _, _, err := tsys.Run(context.Background(), tsys.New(), inPlaceClaimed, xs); err != nil {
		t.Fatal(err)
	}
	if slices.IsSorted(xs) {
		t.Error("TSYS_CHECK_COPIES=1 did not copy the argument")
	}
}
