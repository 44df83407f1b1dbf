package tsys_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
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
		{inPlaceHome.WhyLocal() == nil, errText(inPlaceHome.WhyLocal())},
		{mapTask2.WhyLocal() == nil, errText(mapTask2.WhyLocal())},
	} {
		if c.lendable || !strings.Contains(c.why, "holds a reference") || !strings.Contains(c.why, "tsys.ByValue()") {
			t.Errorf("lendable %v, why %q: want a task kept home, with the reason and the remedy", c.lendable, c.why)
		}
	}
	if why := errText(mapTask2.WhyLocal()); !strings.Contains(why, "field Inner.Seen, map[string]int") {
		t.Errorf("why %q does not name the field", why)
	}
	if inPlaceClaimed.WhyLocal() != nil || copyTask.WhyLocal() != nil || inPlaceClaimed.WhyLocal() != nil {
		t.Error("a task declared ByValue must be lendable")
	}
	// Types that marshal themselves are values, at the top or inside.
	if timeTask.WhyLocal() != nil || taggedTask.WhyLocal() != nil {
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
	t.Setenv("TSYS_CHECK_COPIES", "0") // it tests the runtime without the check
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
				t.Errorf("check=%v %s: sorted %v, want %v", check, tsys.NameOf(task), sorted, want)
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

// homeArg holds a pointer and is not declared ByValue: its task stays on
// its node.
type homeArg struct {
	N    int
	Seen *int
}

var (
	lendFib *tsys.Task[int, int]
	homeFib *tsys.Task[homeArg, int]
)

func init() {
	lendFib = tsys.Register("test.check.lendfib", func(c *tsys.Ctx, n int) int {
		if n < 2 {
			return n
		}
		a := lendFib.Fork(c, n-1)
		b := lendFib.Call(c, n-2)
		return a.Join(c) + b
	})
	homeFib = tsys.Register("test.check.homefib", func(c *tsys.Ctx, a homeArg) int {
		if a.N < 2 {
			return a.N
		}
		x := homeFib.Fork(c, homeArg{a.N - 1, a.Seen})
		y := homeFib.Call(c, homeArg{a.N - 2, a.Seen})
		return x.Join(c) + y
	})
}

// joinSum sums [lo, hi) by halves with Join, a closure tree.
func joinSum(c *tsys.Ctx, lo, hi int) int {
	if hi-lo == 1 {
		return lo
	}
	mid := (lo + hi) / 2
	var a, b int
	tsys.Both(c, func(c *tsys.Ctx) { a = joinSum(c, lo, mid) }, func(c *tsys.Ctx) { b = joinSum(c, mid, hi) })
	return a + b
}

// TestCheckCopiesInlinesWhatStaysHome: under CheckCopies a task that may
// cross nodes is never inlined, so every one of its forks runs on copies,
// while a task that stays home, Join and For are inlined as without the
// check: the check costs what it must and no more.
func TestCheckCopiesInlinesWhatStaysHome(t *testing.T) {
	const n = 18
	forks := int64(fibCalls(n) - fibLeaves(n)) // every call with n >= 2 forks once
	for _, workers := range []int{1, 2} {
		rt := tsys.New(tsys.Workers(workers), tsys.CheckCopies())
		v, st, err := tsys.Run(context.Background(), rt, lendFib, n)
		if err != nil || v != 2584 {
			t.Fatalf("workers %d: lendable fib(%d) = %d, %v", workers, n, v, err)
		}
		if st.Inlined != 0 || st.Spawns != forks {
			t.Errorf("workers %d: lendable task: %d of %d spawns inlined, want 0 of %d", workers, st.Inlined, st.Spawns, forks)
		}
		v, st, err = tsys.Run(context.Background(), rt, homeFib, homeArg{N: n})
		if err != nil || v != 2584 || st.Inlined == 0 {
			t.Errorf("workers %d: home fib(%d) = %d, %v; %d inlined, want some", workers, n, v, err, st.Inlined)
		}
		v, st, err = tsys.Do(context.Background(), rt, func(c *tsys.Ctx) int { return joinSum(c, 0, 1<<12) })
		if err != nil || v != (1<<12)*(1<<12-1)/2 || st.Inlined == 0 {
			t.Errorf("workers %d: Join sum = %d, %v; %d inlined, want some", workers, v, err, st.Inlined)
		}
		xs := make([]int, 1<<16)
		for i := range xs {
			xs[i] = i
		}
		v, _, err = tsys.Do(context.Background(), rt, func(c *tsys.Ctx) int {
			return tsys.Fold(c, 0, len(xs), func() int { return 0 }, func(_ *tsys.Ctx, lo, hi, s int) int {
				for _, x := range xs[lo:hi] {
					s += x
				}
				return s
			}, func(a, b int) int { return a + b })
		})
		if err != nil || v != (1<<16)*(1<<16-1)/2 {
			t.Errorf("workers %d: Fold sum = %d, %v", workers, v, err)
		}
	}
}

func fibCalls(n int) int {
	if n < 2 {
		return 1
	}
	return 1 + fibCalls(n-1) + fibCalls(n-2)
}

func fibLeaves(n int) int {
	if n < 2 {
		return 1
	}
	return fibLeaves(n-1) + fibLeaves(n-2)
}

// records is a slog.Handler that keeps the records it is given.
type records struct {
	mu  sync.Mutex
	got []slog.Record
}

func (h *records) Enabled(context.Context, slog.Level) bool { return true }
func (h *records) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.got = append(h.got, r.Clone())
	return nil
}
func (h *records) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *records) WithGroup(string) slog.Handler      { return h }

// warnings returns the messages of the Warn records that name task.
func (h *records) warnings(task string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, r := range h.got {
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "task" && a.Value.String() == task && r.Level == slog.LevelWarn {
				out = append(out, r.Message)
			}
			return true
		})
	}
	return out
}

// TestCheckCopiesWarnsOnceOfALargeCopy: a task whose argument is large
// is named once, however many of its tasks run, with what to do; a task
// whose copies are small is not named.
func TestCheckCopiesWarnsOnceOfALargeCopy(t *testing.T) {
	h := &records{}
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(h))
	n := carryRegistered.Add(1)
	big := tsys.Register(fmt.Sprintf("test.check.big.%d", n), func(c *tsys.Ctx, b []byte) int { return len(b) }, tsys.ByValue())
	small := tsys.Register(fmt.Sprintf("test.check.small.%d", n), func(c *tsys.Ctx, b []byte) int { return len(b) }, tsys.ByValue())
	rt := tsys.New(tsys.Workers(2), tsys.CheckCopies())
	for range 3 {
		if v, _, err := tsys.Run(context.Background(), rt, big, make([]byte, 2<<20)); err != nil || v != 2<<20 {
			t.Fatal(v, err)
		}
		if _, _, err := tsys.Run(context.Background(), rt, small, []byte("abc")); err != nil {
			t.Fatal(err)
		}
	}
	got := h.warnings(tsys.NameOf(big))
	if len(got) != 1 || !strings.Contains(got[0], "less to carry") || !strings.Contains(got[0], "TSYS_CHECK_COPIES") {
		t.Errorf("warnings for a 2 MB argument: %q; want one, saying what to do", got)
	}
	if got := h.warnings(tsys.NameOf(small)); len(got) != 0 {
		t.Errorf("warnings for a 3-byte argument: %q", got)
	}
}
