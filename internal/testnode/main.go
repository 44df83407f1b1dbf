// Command testnode is the node process of package cluster's process
// tests (internal/cluster/process_test.go): a tsys program like any
// user's, so it imports tsys for its tasks and cli for the command line
// every program has (node, run --join, drain, jobs), which the tests
// drive it through. It sits here, with the test helpers, rather than
// under internal/cluster, so that no package of the cluster's tree
// imports the program's entry package (internal/layering). Its two
// programs: sum, whose work a test can pace and check leaf by leaf, and
// stop, a recursion of leaves that never poll, one of which fails
// (stop.go).
//
//	testnode node --bind 127.0.0.1:0 [--join SEED] [--workers W] [--sched S] [--share P]
//	testnode run sum -n N --leaf L --pace D --hold FILE --ledger DIR --tag T --join SEED --json
//
// sum adds i*i for i below N, halving the range down to leaves of at most
// L terms, each a task that may run on any node. A leaf sleeps D while the
// file --hold exists, so that a test keeps the job running for as long as
// it needs (to start a node, drain one, kill one), however loaded the
// machine, and then lets it finish at full speed by removing the file.
// Each leaf, once done, appends "TAG LO" to DIR/PID, its process's own
// file: the test reads there which process ran which leaf, and how many
// times. The answer is checked against (N-1)N(2N-1)/6.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tsys-go/tsys/cli"
	"github.com/tsys-go/tsys/tsys"
)

func main() { cli.Main(config) }

// body picks the leaf's loop: a test of mixed builds links a binary with
// -ldflags "-X main.body=reversed", another build of the same program
// whose body differs and whose answer does not.
var body string

// Sum is the task: a range halved down to leaves.
var Sum *tsys.Task[Span, int64]

func init() { Sum = tsys.Register("cluster.testnode.sum", failing(sum)) }

// failing makes a task of a function that returns an error: a non-nil
// error fails the job (Ctx.Fail).
func failing[A, R any](fn func(*tsys.Ctx, A) (R, error)) func(*tsys.Ctx, A) R {
	return func(c *tsys.Ctx, a A) R {
		v, err := fn(c, a)
		if err != nil {
			c.Fail(err)
		}
		return v
	}
}

func sum(c *tsys.Ctx, s Span) (int64, error) {
	if s.Hi-s.Lo <= s.Leaf {
		return leaf(s)
	}
	mid := s.Lo + (s.Hi-s.Lo)/2
	left, right := s, s
	left.Hi, right.Lo = mid, mid
	r := Sum.Fork(c, right)
	l, err := sum(c, left)
	if err != nil {
		return 0, err
	}
	return l + r.Join(c), nil
}

// leaf sums its terms, sleeps while the job is held, and writes down that
// it ran here.
func leaf(s Span) (int64, error) {
	var v int64
	if body == "reversed" {
		for i := s.Hi - 1; i >= s.Lo; i-- {
			v += i * i
		}
	} else {
		for i := s.Lo; i < s.Hi; i++ {
			v += i * i
		}
	}
	if s.Hold != "" {
		if _, err := os.Stat(s.Hold); err == nil {
			time.Sleep(s.Pace)
		}
	}
	if s.Ledger != "" {
		if err := record(s.Ledger, fmt.Sprintf("%s %d\n", s.Tag, s.Lo)); err != nil {
			return 0, err
		}
	}
	return v, nil
}

var ledger struct {
	sync.Mutex
	files map[string]*os.File
}

// record appends line to this process's file in dir, in one write.
func record(dir, line string) error {
	ledger.Lock()
	defer ledger.Unlock()
	f := ledger.files[dir]
	if f == nil {
		var err error
		f, err = os.OpenFile(filepath.Join(dir, strconv.Itoa(os.Getpid())), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		if ledger.files == nil {
			ledger.files = map[string]*os.File{}
		}
		ledger.files[dir] = f
	}
	_, err := f.WriteString(line)
	return err
}

var config = cli.Config{Name: "testnode", Programs: []cli.Program{stopProgram, {
	Name:    "sum",
	Summary: "sum of i*i for i below N in leaves of L terms, paced while --hold exists (-n N --leaf L --pace D --hold FILE --ledger DIR --tag T)",
	Options: func() cli.Options { return new(sumOptions) },
}}}

// job is sum's cli.Job, verified against the closed form.
type job struct {
	cli.Job
	n int64
}

// want is the sum of i*i for i below n.
func want(n int64) int64 { return (n - 1) * n * (2*n - 1) / 6 }

func (j job) Verify(r cli.Result) (bool, error) {
	if got := r.Value.(int64); got != want(j.n) {
		return true, fmt.Errorf("sum %d, want %d", got, want(j.n))
	}
	return true, nil
}

// sumOptions are the sum program's options.
type sumOptions struct{ s Span }

func (o *sumOptions) Flags(fs *flag.FlagSet) {
	fs.Int64Var(&o.s.Hi, "n", 1<<10, "terms")
	fs.Int64Var(&o.s.Leaf, "leaf", 16, "terms of a leaf")
	fs.DurationVar(&o.s.Pace, "pace", 20*time.Millisecond, "how long a leaf sleeps while --hold exists")
	fs.StringVar(&o.s.Hold, "hold", "", "file whose existence paces the leaves")
	fs.StringVar(&o.s.Ledger, "ledger", "", "directory where each process writes down the leaves it ran")
	fs.StringVar(&o.s.Tag, "tag", "sum", "the job's name in the ledger (one word)")
}

func (o *sumOptions) Job() (cli.Job, error) {
	s := o.s
	// Beyond 2^18 terms the sum leaves the integers a float64
	// holds exactly, as the --json report carries it.
	if s.Hi < 0 || s.Hi > 1<<18 || s.Leaf < 1 || s.Pace < 0 {
		return nil, errors.New("want 0 <= n <= 2^18, leaf >= 1, pace >= 0")
	}
	if s.Tag == "" || strings.ContainsAny(s.Tag, " \t\n") {
		return nil, fmt.Errorf("--tag %q: want one word", s.Tag)
	}
	return job{cli.TaskJob(Sum, s, map[string]any{"n": s.Hi, "leaf": s.Leaf, "tag": s.Tag}), s.Hi}, nil
}
