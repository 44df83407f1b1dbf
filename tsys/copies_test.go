package tsys_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

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

// tagged holds a map but marshals itself: a value.
type tagged struct{ tags map[string]int }

func (t tagged) MarshalBinary() ([]byte, error) { return []byte{byte(len(t.tags))}, nil }
func (t *tagged) UnmarshalBinary(b []byte) error {
	t.tags = map[string]int{}
	return nil
}

type withMap struct {
	N     int
	Inner struct{ Seen map[string]int }
}

var (
	inPlaceHome, inPlaceClaimed *tsys.Task[[]int, int]
	copyTask                    *tsys.Task[[]int, []int]
	mapTask2                    *tsys.Task[withMap, int]
	timeTask                    *tsys.Task[time.Time, int64]
	taggedTask                  *tsys.Task[struct{ T tagged }, int]
)

func init() {
	inPlaceHome = tsys.Register("test.sort.home", sortInPlace)
	inPlaceClaimed = tsys.Register("test.sort.claimed", sortInPlace, tsys.ByValue())
	copyTask = tsys.Register("test.sort.copy", sortCopy, tsys.ByValue())
	mapTask2 = tsys.Register("test.withmap", func(c *tsys.Ctx, w withMap) int { return w.N })
	timeTask = tsys.Register("test.time", func(c *tsys.Ctx, t time.Time) int64 { return t.Unix() })
	taggedTask = tsys.Register("test.tagged", func(c *tsys.Ctx, t struct{ T tagged }) int { return len(t.T.tags) })
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
	// Types that marshal themselves are values, at the top or inside.
	if !timeTask.Lendable() || !taggedTask.Lendable() {
		t.Errorf("time.Time: %v; a field that marshals itself: %v; want both lendable", timeTask.WhyLocal(), taggedTask.WhyLocal())
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
// with it unchanged; 0 leaves it off, and a value that is neither turns
// it on rather than letting a typo pass unchecked.
func TestCheckCopiesFromTheEnvironment(t *testing.T) {
	for _, c := range []struct {
		value  string
		copies bool
	}{{"1", true}, {"true", true}, {"yes", true}, {"0", false}, {"false", false}} {
		t.Setenv("TSYS_CHECK_COPIES", c.value)
		xs := []int{3, 1, 2}
		if _, _, err := tsys.Run(context.Background(), tsys.New(), inPlaceClaimed, xs); err != nil {
			t.Fatal(err)
		}
		if copied := !slices.IsSorted(xs); copied != c.copies {
			t.Errorf("TSYS_CHECK_COPIES=%s: copied %v, want %v", c.value, copied, c.copies)
		}
	}
}
