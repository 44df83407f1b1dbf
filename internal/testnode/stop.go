package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tsys-go/tsys/cli"
	"github.com/tsys-go/tsys/tsys"
)

// The program stop is a recursion of leaves that never poll, one of which
// fails, for the process tests of a failure that must stop the whole job
// on every node (cluster/stop_process_test.go):
//
//	testnode run stop --leaves N --leaf-time D --fail-on root|node --fail-at K [--plain] --ledger DIR --tag T --join SEED --json
//
// A leaf sleeps D, deaf to the job's context, as a long computation runs.
// The K-th leaf to begin in a process of the role --fail-on names fails:
// "node" is a serving node process, which only it can see, so that the
// failure starts away from the job's root. Each leaf writes down in the
// ledger, when it begins, whether its process already knew that the job
// had ended (the job's context is done once the pool's ending flag is
// set): that is what a test counts, without comparing two processes'
// clocks. Every line is "TAG EVENT ROLE LEAF ENDED UNIXNANO". The failing leaf writes down the time it failed, and the root
// the time Run returned, both on the host's wall clock, which the
// processes of one host share: the latency a benchmark reports.

// role is what this process is: "root" for `run`, "node" for `node`.
var role = roleOf(os.Args)

func roleOf(args []string) string {
	if len(args) > 1 && args[1] == "node" {
		return "node"
	}
	return "root"
}

// Stop is a piece of the recursion, and how its leaves fail and where
// they say so.
type Stop struct {
	Lo, Hi      int64
	LeafTime    time.Duration
	FailOn      string
	FailAt      int64
	Ledger, Tag string
	// Plain recurses into the left half with a plain Go call, where
	// otherwise it calls StopTask.Call, as RegisterErr's doc writes it:
	// Call is a point where the runtime stops a job that has ended, a
	// plain call is the program's own, which only the next fork stops.
	Plain bool
}

// StopTask is the program's task: a range halved down to single leaves.
var StopTask *tsys.Task[Stop, int64]

func init() { StopTask = tsys.Register("cluster.testnode.stop", failing(stop)) }

// stopBegun counts the leaves begun in this process, a counter per job's
// tag: a serving node runs one job after another.
var stopBegun sync.Map // tag -> *atomic.Int64

func begun(tag string) int64 {
	n, _ := stopBegun.LoadOrStore(tag, new(atomic.Int64))
	return n.(*atomic.Int64).Add(1)
}

// errLeaf is the failing leaf's error; the test looks for its text in
// the root's error.
var errLeaf = errors.New("testnode: the failing leaf failed")

func stop(c *tsys.Ctx, s Stop) (int64, error) {
	if s.Hi-s.Lo <= 1 {
		return 1, stopLeaf(c, s)
	}
	mid := s.Lo + (s.Hi-s.Lo)/2
	left, right := s, s
	left.Hi, right.Lo = mid, mid
	r := StopTask.Fork(c, right)
	var l int64
	if s.Plain {
		var err error
		if l, err = stop(c, left); err != nil {
			return 0, err
		}
	} else {
		l = StopTask.Call(c, left)
	}
	return l + r.Join(c), nil
}

// stopLeaf begins a leaf: it writes down whether the job had ended here
// before it began, sleeps, and fails if it is the one.
func stopLeaf(c *tsys.Ctx, s Stop) error {
	ended := c.Context().Err() != nil
	n := begun(s.Tag)
	if err := record(s.Ledger, fmt.Sprintf("%s begin %s %d %t %d\n", s.Tag, role, s.Lo, ended, time.Now().UnixNano())); err != nil {
		return err
	}
	time.Sleep(s.LeafTime)
	if s.FailOn == role && n == s.FailAt {
		if err := record(s.Ledger, fmt.Sprintf("%s fail %s %d false %d\n", s.Tag, role, s.Lo, time.Now().UnixNano())); err != nil {
			return err
		}
		return fmt.Errorf("leaf %d: %w", s.Lo, errLeaf)
	}
	return nil
}

// stopJob is stop's cli.Job: it writes down when Run returned.
type stopJob struct {
	cli.Job
	s Stop
}

func (j stopJob) Run(ctx context.Context, rt *tsys.Runtime) (cli.Result, tsys.Stats, error) {
	r, st, err := j.Job.Run(ctx, rt)
	if rerr := record(j.s.Ledger, fmt.Sprintf("%s returned %s 0 false %d\n", j.s.Tag, role, time.Now().UnixNano())); rerr != nil && err == nil {
		err = rerr
	}
	return r, st, err
}

var stopProgram = cli.Program{
	Name:    "stop",
	Summary: "N leaves of D that never poll, the K-th begun on a process of role R fails (--leaves N --leaf-time D --fail-on R --fail-at K --ledger DIR --tag T)",
	Options: func() cli.Options { return new(stopOptions) },
}

// stopOptions are the stop program's options.
type stopOptions struct{ s Stop }

func (o *stopOptions) Flags(fs *flag.FlagSet) {
	fs.Int64Var(&o.s.Hi, "leaves", 64, "leaves")
	fs.DurationVar(&o.s.LeafTime, "leaf-time", 50*time.Millisecond, "how long a leaf sleeps")
	fs.StringVar(&o.s.FailOn, "fail-on", "node", "the role of the process whose leaf fails: root or node")
	fs.Int64Var(&o.s.FailAt, "fail-at", 2, "the leaf that fails, counted as they begin in that process, from 1")
	fs.StringVar(&o.s.Ledger, "ledger", "", "directory where each process writes down its leaves")
	fs.StringVar(&o.s.Tag, "tag", "stop", "the job's name in the ledger (one word)")
	fs.BoolVar(&o.s.Plain, "plain", false, "recurse into the left half with a plain Go call, not StopTask.Call")
}

func (o *stopOptions) Job() (cli.Job, error) {
	s := o.s
	switch {
	case s.Hi < 1 || s.LeafTime < 0 || s.FailAt < 1:
		return nil, errors.New("want leaves >= 1, leaf-time >= 0, fail-at >= 1")
	case s.FailOn != "root" && s.FailOn != "node":
		return nil, fmt.Errorf("--fail-on %q: want root or node", s.FailOn)
	case s.Ledger == "":
		return nil, errors.New("--ledger: want a directory")
	case s.Tag == "" || strings.ContainsAny(s.Tag, " \t\n"):
		return nil, fmt.Errorf("--tag %q: want one word", s.Tag)
	}
	params := map[string]any{"leaves": s.Hi, "fail_on": s.FailOn, "fail_at": s.FailAt, "tag": s.Tag, "plain": s.Plain}
	return stopJob{cli.TaskJob(StopTask, s, params), s}, nil
}
