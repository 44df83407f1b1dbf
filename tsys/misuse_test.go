package tsys_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/tsys"
)

// The misuses of a Ctx a program can write, each with what its panic must
// say. A Ctx belongs to the code it was given to, on its goroutine, while
// it runs (tsys.Ctx); every other use is named at once, the same way every
// time, whatever the load made of the forks, and the runtime is left fit
// for the next job.

var misuseFib *tsys.Task[int, int]

func misuseFibBody(c *tsys.Ctx, n int) int {
	if n < 2 {
		return n
	}
	a := misuseFib.Fork(c, n-1)
	b := misuseFibBody(c, n-2)
	return a.Join(c) + b
}

func init() { misuseFib = tsys.Register("test.misuse.fib", misuseFibBody) }

// A misuse is a job's root closure and what its TaskPanic must say.
type misuse struct {
	name string
	root func(c *tsys.Ctx) int
	want []string // the panic's value holds one of these
}

const (
	wantCaptured  = "used inside it: use the Ctx the body is given"
	wantUnjoined  = "body returned without joining a Forked"
	wantElsewhere = "a Forked joined through a Ctx other than the one that forked it"
)

var misuses = []misuse{
	{"a For body forks with the enclosing task's Ctx", func(c *tsys.Ctx) int {
		out := make([]int, 64)
		tsys.For(c, 0, len(out), func(_ *tsys.Ctx, lo, hi int) {
			for i := lo; i < hi; i++ {
				out[i] = misuseFib.Fork(c, 12).Join(c)
			}
		})
		return out[0]
	}, []string{"tsys.For body " + wantCaptured}},
	{"a Fold body joins with the enclosing task's Ctx", func(c *tsys.Ctx) int {
		f := misuseFib.Fork(c, 10)
		n := tsys.Fold(c, 0, 64, func() int { return 0 }, func(_ *tsys.Ctx, lo, hi, acc int) int {
			return acc + hi - lo + f.Join(c)*0
		}, func(a, b int) int { return a + b })
		return n
	}, []string{"tsys.Fold body " + wantCaptured}},
	{"a Both closure spawns with the enclosing task's Ctx", func(c *tsys.Ctx) int {
		var a, b int
		tsys.Both(c, func(*tsys.Ctx) { a = misuseFib.Spawn(c, 12).Get(c) }, func(c *tsys.Ctx) { b = misuseFibBody(c, 12) })
		return a + b
	}, []string{"tsys.Both body " + wantCaptured}},
	{"a Pair closure calls a task with the enclosing task's Ctx", func(c *tsys.Ctx) int {
		a, b := tsys.Pair(c, func(c *tsys.Ctx) int { return misuseFibBody(c, 12) },
			func(*tsys.Ctx) int { return misuseFib.Call(c, 12) })
		return a + b
	}, []string{"tsys.Pair body " + wantCaptured}},
	{"a Both closure asks AllowCCall of the enclosing task's Ctx", func(c *tsys.Ctx) int {
		n := 0
		tsys.Both(c, func(*tsys.Ctx) {
			if c.AllowCCall() {
				n++
			}
		}, func(*tsys.Ctx) {})
		return n
	}, []string{"tsys.Both body " + wantCaptured}},
	{"a Forked made in Both's second closure is joined by the enclosing task", func(c *tsys.Ctx) int {
		var f tsys.Forked[int]
		tsys.Both(c, func(c *tsys.Ctx) { misuseFibBody(c, 10) }, func(c *tsys.Ctx) { f = misuseFib.Fork(c, 12) })
		return f.Join(c)
	}, []string{"tsys.Both " + wantUnjoined, wantElsewhere}},
	{"a For body's Ctx is used after the body returned", func(c *tsys.Ctx) int {
		var kept *tsys.Ctx
		tsys.For(c, 0, 1, func(c *tsys.Ctx, _, _ int) { kept = c })
		return misuseFib.Fork(kept, 12).Join(kept)
	}, []string{"the Ctx of a closure body used after the body returned"}},
	{"Fork with a nil Ctx", func(c *tsys.Ctx) int {
		return misuseFib.Fork(nil, 12).Join(c)
	}, []string{"nil *tsys.Ctx"}},
	{"Join with a nil Ctx", func(c *tsys.Ctx) int {
		return misuseFib.Fork(c, 12).Join(nil)
	}, []string{"nil *tsys.Ctx"}},
	{"Both with a nil Ctx", func(*tsys.Ctx) int {
		tsys.Both(nil, func(*tsys.Ctx) {}, func(*tsys.Ctx) {})
		return 0
	}, []string{"tsys.Both: a nil *tsys.Ctx"}},
	{"Both with a nil function", func(c *tsys.Ctx) int {
		tsys.Both(c, func(*tsys.Ctx) {}, nil)
		return 0
	}, []string{"tsys.Both: g is a nil function"}},
	{"For with a nil body", func(c *tsys.Ctx) int {
		tsys.For(c, 0, 10, nil)
		return 0
	}, []string{"tsys.For: body is a nil function"}},
	{"a Forked that no Fork made", func(c *tsys.Ctx) int {
		var f tsys.Forked[int]
		return f.Join(c)
	}, []string{"a Forked joined that no Fork made"}},
}

// TestMisusedCtxIsNamed runs each misuse 200 times on 1 and 2 workers,
// in turn under the inlining policies that make its forks tasks, calls,
// or either as the load says: the run's TaskPanic names the mistake every
// time, never a nil dereference from inside the runtime, and the runtime
// then runs a job right.
func TestMisusedCtxIsNamed(t *testing.T) {
	checkNoLeak(t)
	reps := 200
	if testing.Short() {
		reps = 30
	}
	policies := []inline.Policy{inline.Default(), inline.Never(), inline.Everything()}
	for _, m := range misuses {
		t.Run(m.name, func(t *testing.T) {
			for _, w := range []int{1, 2} {
				var rts []*tsys.Runtime
				for _, pol := range policies {
					rts = append(rts, tsys.New(tsys.Workers(w), tsys.Inline(pol)))
				}
				for i := range reps {
					rt, pol := rts[i%len(rts)], policies[i%len(rts)]
					_, _, err := doBounded(t, rt, m.root)
					checkNamed(t, fmt.Sprintf("workers=%d inline=%v rep %d", w, pol, i), err, m.want)
					if v, _, err := doBounded(t, rt, func(c *tsys.Ctx) int { return misuseFibBody(c, 15) }); err != nil || v != 610 {
						t.Fatalf("workers=%d inline=%v rep %d: the next job on the runtime: %d, %v; want 610", w, pol, i, v, err)
					}
				}
			}
		})
	}
}

// TestPanicRecoveredAroundABody: a task that recovers a panic out of a
// closure body is told, at its next use of its Ctx, that the panic ended
// it; a panic recovered inside the body costs nothing; and the next job
// runs right either way.
func TestPanicRecoveredAroundABody(t *testing.T) {
	for _, w := range []int{1, 2} {
		rt := tsys.New(tsys.Workers(w))
		_, _, err := doBounded(t, rt, func(c *tsys.Ctx) int {
			func() {
				defer func() { recover() }()
				tsys.Both(c, func(*tsys.Ctx) { panic("inside") }, func(*tsys.Ctx) {})
			}()
			return misuseFibBody(c, 15)
		})
		checkNamed(t, fmt.Sprintf("workers=%d: a Ctx used after a recovered panic", w), err,
			[]string{"tsys.Both body used after a panic out of the body was recovered"})
		_, _, err = doBounded(t, rt, func(c *tsys.Ctx) int {
			func() {
				defer func() { recover() }()
				tsys.Both(c, func(*tsys.Ctx) { panic("inside") }, func(*tsys.Ctx) {})
			}()
			return 7 // returning is the body's last use of its Ctx
		})
		checkNamed(t, fmt.Sprintf("workers=%d: a body that returns after a recovered panic", w), err,
			[]string{"tsys.Both body used after a panic out of the body was recovered"})
		_, _, err = doBounded(t, rt, func(c *tsys.Ctx) int {
			return misuseRecoverer.Call(c, 0)
		})
		// On 2 workers the other may take a piece of the For and panic
		// there first: a panic on another worker fails the job itself,
		// with the body's own value, before the task's recover sees one.
		want := []string{"tsys.For body used after a panic out of the body was recovered"}
		if w > 1 {
			want = append(want, "inside")
		}
		checkNamed(t, fmt.Sprintf("workers=%d: a task that returns after a recovered panic", w), err, want)
		v, _, err := doBounded(t, rt, func(c *tsys.Ctx) int {
			n := 0
			tsys.Both(c, func(c *tsys.Ctx) {
				func() {
					defer func() { recover() }()
					panic("inside")
				}()
				n += misuseFibBody(c, 10)
			}, func(*tsys.Ctx) {})
			return n + misuseFibBody(c, 15)
		})
		if err != nil || v != 55+610 {
			t.Fatalf("workers=%d: a panic recovered inside the body: %d, %v", w, v, err)
		}
	}
}

// doBounded is tsys.Do with a bound on its time: a misuse that hung the
// runtime fails the test rather than the test binary's timeout.
func doBounded(t *testing.T, rt *tsys.Runtime, f func(c *tsys.Ctx) int) (int, tsys.Stats, error) {
	t.Helper()
	type result struct {
		v   int
		st  tsys.Stats
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, st, err := tsys.Do(context.Background(), rt, f)
		done <- result{v, st, err}
	}()
	select {
	case r := <-done:
		return r.v, r.st, r.err
	case <-time.After(time.Minute):
		t.Fatal("the job did not end within a minute: the runtime hangs")
		return 0, tsys.Stats{}, nil
	}
}

// checkNamed fails unless err is a TaskPanic whose value says one of want
// and which is no nil dereference.
func checkNamed(t *testing.T, what string, err error, want []string) {
	t.Helper()
	var tp *tsys.TaskPanic
	if !errors.As(err, &tp) {
		t.Fatalf("%s: err = %v; want a *tsys.TaskPanic naming the mistake", what, err)
	}
	msg := fmt.Sprint(tp.Value)
	for _, w := range want {
		if strings.Contains(msg, w) {
			if strings.Contains(string(tp.Stack), "sigpanic") && !strings.Contains(msg, "nil *tsys.Ctx") {
				t.Fatalf("%s: a fault inside the runtime: %v", what, err)
			}
			return
		}
	}
	t.Fatalf("%s: the panic says %q; want one of %q", what, msg, want)
}

// TestBodyFailuresNameTheirForm: a failure in a closure body names the
// body's form, the same whether the body ran here or on a thief, as a
// TaskError and as a TaskPanic; a failure in a registered task that runs
// inside a body names the task.
func TestBodyFailuresNameTheirForm(t *testing.T) {
	errBoom := errors.New("boom")
	cases := []struct {
		form string
		root func(c *tsys.Ctx, fail func(c *tsys.Ctx)) int
	}{
		{"tsys.Both", func(c *tsys.Ctx, fail func(*tsys.Ctx)) int {
			tsys.Both(c, func(c *tsys.Ctx) { misuseFibBody(c, 8) }, fail)
			return 0
		}},
		{"tsys.Pair", func(c *tsys.Ctx, fail func(*tsys.Ctx)) int {
			a, _ := tsys.Pair(c, func(c *tsys.Ctx) int { return misuseFibBody(c, 8) }, func(c *tsys.Ctx) int { fail(c); return 0 })
			return a
		}},
		{"tsys.For", func(c *tsys.Ctx, fail func(*tsys.Ctx)) int {
			tsys.For(c, 0, 64, func(c *tsys.Ctx, lo, hi int) {
				if lo <= 40 && 40 < hi {
					fail(c)
				}
			}, tsys.Grain(1))
			return 0
		}},
		{"tsys.Fold", func(c *tsys.Ctx, fail func(*tsys.Ctx)) int {
			return tsys.Fold(c, 0, 64, func() int { return 0 }, func(c *tsys.Ctx, lo, hi, acc int) int {
				if lo <= 40 && 40 < hi {
					fail(c)
				}
				return acc
			}, func(a, b int) int { return a + b }, tsys.Grain(1))
		}},
		{"tsys.Do", func(c *tsys.Ctx, fail func(*tsys.Ctx)) int { fail(c); return 0 }},
	}
	failers := map[string]func(c *tsys.Ctx){
		"Fail":  func(c *tsys.Ctx) { c.Fail(errBoom) },
		"panic": func(*tsys.Ctx) { panic(errBoom) },
	}
	for _, tc := range cases {
		for how, fail := range failers {
			for _, w := range []int{1, 2} {
				for _, pol := range []inline.Policy{inline.Never(), inline.Everything(), inline.Default()} {
					rt := tsys.New(tsys.Workers(w), tsys.Inline(pol))
					for i := range 20 {
						_, _, err := doBounded(t, rt, func(c *tsys.Ctx) int { return tc.root(c, fail) })
						var te *tsys.TaskError
						var tp *tsys.TaskPanic
						task := ""
						switch {
						case errors.As(err, &te):
							task = te.Task
						case errors.As(err, &tp):
							task = tp.Task
						default:
							t.Fatalf("%s by %s: %v", tc.form, how, err)
						}
						if task != tc.form || !errors.Is(err, errBoom) {
							t.Fatalf("%s by %s, workers=%d inline=%v rep %d: names task %q (%v); want %q",
								tc.form, how, w, pol, i, task, err, tc.form)
						}
					}
				}
			}
		}
	}
	// A registered task's failure inside a body is the task's.
	_, _, err := tsys.Do(context.Background(), tsys.New(tsys.Workers(2)), func(c *tsys.Ctx) int {
		tsys.For(c, 0, 8, func(c *tsys.Ctx, lo, _ int) { misuseFailer.Call(c, lo) })
		return 0
	})
	var te *tsys.TaskError
	if !errors.As(err, &te) || te.Task != "test.misuse.failer" {
		t.Fatalf("a registered task failing inside a For body: %v; want a TaskError naming test.misuse.failer", err)
	}
}

var misuseRecoverer = tsys.Register("test.misuse.recoverer", func(c *tsys.Ctx, _ int) int {
	func() {
		defer func() { recover() }()
		tsys.For(c, 0, 10, func(*tsys.Ctx, int, int) { panic("inside") })
	}()
	return 7
})

var misuseFailer = tsys.RegisterAction("test.misuse.failer", func(c *tsys.Ctx, i int) {
	if i >= 0 {
		c.Fail(errors.New("failer"))
	}
})

// TestCtxKeptAfterItsJobIsNamed: a Ctx kept after its job ended panics,
// when used, with a message that says so, on the program's own goroutine;
// Context alone may still be called, and is done.
func TestCtxKeptAfterItsJobIsNamed(t *testing.T) {
	rt := tsys.New(tsys.Workers(2))
	var kept *tsys.Ctx
	if _, _, err := tsys.Do(context.Background(), rt, func(c *tsys.Ctx) int { kept = c; return 0 }); err != nil {
		t.Fatal(err)
	}
	if kept.Context().Err() == nil {
		t.Error("the Context of a job that ended is not done")
	}
	for name, use := range map[string]func(){
		"Fork":       func() { misuseFib.Fork(kept, 10).Join(kept) },
		"Spawn":      func() { misuseFib.Spawn(kept, 10).Get(kept) },
		"Call":       func() { misuseFib.Call(kept, 10) },
		"AllowCCall": func() { kept.AllowCCall() },
		"Both":       func() { tsys.Both(kept, func(*tsys.Ctx) {}, func(*tsys.Ctx) {}) },
		"For":        func() { tsys.For(kept, 0, 10, func(*tsys.Ctx, int, int) {}) },
		"Fail":       func() { kept.Fail(errors.New("late")) },
	} {
		func() {
			defer func() {
				if r := recover(); !strings.Contains(fmt.Sprint(r), "a Ctx used after its job ended") {
					t.Errorf("%s through a Ctx kept after its job: panic %v; want the mistake named", name, r)
				}
			}()
			use()
		}()
	}
	if v, _, err := tsys.Run(context.Background(), rt, misuseFib, 15); err != nil || v != 610 {
		t.Fatalf("the next job: %d, %v", v, err)
	}
}

// TestZeroRuntimeIsAnError: a Runtime not made by New is refused by Run
// and Do with an error that says how to make one.
func TestZeroRuntimeIsAnError(t *testing.T) {
	if _, _, err := tsys.Run(context.Background(), &tsys.Runtime{}, misuseFib, 3); err == nil || !strings.Contains(err.Error(), "tsys.New") {
		t.Errorf("Run on a zero Runtime: %v", err)
	}
	if _, _, err := tsys.Do(context.Background(), &tsys.Runtime{}, func(*tsys.Ctx) int { return 0 }); err == nil || !strings.Contains(err.Error(), "tsys.New") {
		t.Errorf("Do on a zero Runtime: %v", err)
	}
}

// TestZeroOptionsChangeNothing: the zero value of each option type (an
// option a program declared and never set) changes nothing, rather than
// panicking with a nil function call inside New, Register or a loop.
func TestZeroOptionsChangeNothing(t *testing.T) {
	rt := tsys.New(tsys.Option{})
	task := tsys.Register("test.misuse.zeroOption", func(c *tsys.Ctx, n int) int {
		sum := tsys.Fold(c, 0, n, func() int { return 0 },
			func(_ *tsys.Ctx, lo, hi, s int) int { return s + hi - lo },
			func(a, b int) int { return a + b }, tsys.LoopOption{})
		return sum
	}, tsys.TaskOption{})
	if v, _, err := tsys.Run(context.Background(), rt, task, 1000); err != nil || v != 1000 {
		t.Errorf("a job made with zero options: %d, %v; want 1000", v, err)
	}
}

// misuseChildEnv makes the test binary run one misuse that ends the
// process, as a child of TestCtxOnAGoroutineIsNamed.
const misuseChildEnv = "TSYS_TEST_MISUSE_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(misuseChildEnv) != "" {
		goroutineMisuse()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// goroutineMisuse hands a task's Ctx to a goroutine of the program's own,
// beside the task's own use of it, many times over.
func goroutineMisuse() {
	rt := tsys.New(tsys.Workers(2))
	for range 50 {
		v, _, err := tsys.Do(context.Background(), rt, func(c *tsys.Ctx) int {
			done := make(chan int)
			go func() { done <- misuseFib.Fork(c, 20).Join(c) }()
			v := misuseFib.Fork(c, 22).Join(c)
			return v + <-done
		})
		if err != nil {
			fmt.Println("job error:", err)
			os.Exit(3)
		}
		if v != 6765+17711 {
			fmt.Println("WRONG ANSWER", v)
			os.Exit(4)
		}
	}
	fmt.Println("the goroutine's misuse went unseen")
}

// TestCtxOnAGoroutineIsNamed: a Ctx handed to a goroutine of the
// program's own ends the process with a panic that names the mistake,
// never a wrong answer, a nil dereference or a hang. It runs in child
// processes, as the panic ends the process, 200 of them (20 with -short).
func TestCtxOnAGoroutineIsNamed(t *testing.T) {
	reps := 200
	if testing.Short() {
		reps = 20
	}
	named := 0
	for i := range reps {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), misuseChildEnv+"=1")
		out, err := cmd.CombinedOutput()
		hung := ctx.Err() != nil
		cancel()
		s := string(out)
		switch {
		case hung:
			t.Fatalf("child %d hung:\n%s", i, s)
		case strings.Contains(s, "WRONG ANSWER"), strings.Contains(s, "job error"):
			t.Fatalf("child %d: %s", i, s)
		case strings.Contains(s, "nil pointer dereference"), strings.Contains(s, "SIGSEGV"):
			t.Fatalf("child %d faulted:\n%s", i, s)
		case err != nil && strings.Contains(s, "a Ctx used on a goroutine that is not its task's"):
			named++
		case err == nil && strings.Contains(s, "went unseen"):
			// Every fork the goroutine made ran on credit, as plain
			// calls: no deque or frame was touched, and the answer was
			// right.
		default:
			t.Fatalf("child %d: exit %v, output:\n%s", i, err, s)
		}
	}
	if named == 0 {
		t.Errorf("none of %d children named the mistake", reps)
	}
	t.Logf("%d of %d children named the mistake; the rest went unseen and right", named, reps)
}

// TestOuterCtxInANestedJobIsNamed: a job started from inside a task, while
// the runs in progress hold the CPUs, runs solo on that task's goroutine,
// where the task's Ctx passes the check. A closure of the inner job that
// uses the outer task's Ctx once the outer job has ended (here: its
// caller cancelled it) fails the inner job with a TaskPanic that names
// the mistake, never a success with no result.
func TestOuterCtxInANestedJobIsNamed(t *testing.T) {
	checkNoLeak(t)
	// As many workers as CPUs: a run beside the first one runs solo.
	rt := tsys.New(tsys.Workers(runtime.GOMAXPROCS(0)))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var inner error
	_, _, err := tsys.Do(ctx, rt, func(c *tsys.Ctx) int {
		_, _, inner = tsys.Do(context.Background(), rt, func(*tsys.Ctx) int {
			cancel()
			select {
			case <-c.Context().Done():
			case <-time.After(time.Minute):
				t.Error("the outer job's context was not done a minute after its caller cancelled it")
			}
			return deadlineFib.Call(c, 5) + 1 // the outer task's Ctx
		})
		return 0
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("the outer job: %v; want context.Canceled", err)
	}
	var tp *tsys.TaskPanic
	if !errors.As(inner, &tp) || !strings.Contains(inner.Error(), "the Ctx of the task that started this job used inside it") {
		t.Errorf("the inner job that used the outer task's Ctx: %v; want a TaskPanic that names the mistake", inner)
	}
}
