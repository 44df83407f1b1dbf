package advise_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/tsys-go/tsys/advise"
	"github.com/tsys-go/tsys/cli"
	"github.com/tsys-go/tsys/internal/clitest"
	"github.com/tsys-go/tsys/tsys"
)

// split is a divide-and-conquer count of the leaves of [lo, hi) in pieces
// of at most leaf, the shape of EP's and RT's trees.
type span struct{ Lo, Hi, Leaf int }

var split *tsys.Task[span, int]

func init() { split = tsys.Register("clitest.split", countLeaves) }

func countLeaves(c *tsys.Ctx, s span) int {
	if s.Hi-s.Lo <= s.Leaf {
		spin(s.Hi - s.Lo)
		return s.Hi - s.Lo
	}
	mid := (s.Lo + s.Hi) / 2
	left := split.Spawn(c, span{s.Lo, mid, s.Leaf})
	return split.Call(c, span{mid, s.Hi, s.Leaf}) + left.Get(c)
}

// splitJob counts n leaves; wrong makes it give a wrong answer, fail
// makes it fail.
type splitJob struct {
	n, leaf     int
	wrong, fail bool
}

func (j splitJob) Params() map[string]any { return map[string]any{"n": j.n} }
func (j splitJob) Run(ctx context.Context, rt *tsys.Runtime) (cli.Result, tsys.Stats, error) {
	if j.fail {
		return cli.Result{}, tsys.Stats{}, errors.New("the disk is full")
	}
	v, st, err := tsys.Run(ctx, rt, split, span{0, j.n, j.leaf})
	return cli.Result{Value: v}, st, err
}
func (j splitJob) Verify(r cli.Result) (bool, error) {
	if want := j.n; r.Value.(int) != want || j.wrong {
		return true, fmt.Errorf("%v leaves, want %d", r.Value, want)
	}
	return true, nil
}

// splitOptions are the split program's options; clash adds a flag that
// advise has too.
type splitOptions struct {
	n, leaf     int
	wrong, fail bool
	clash       bool
}

func (o *splitOptions) Flags(fs *flag.FlagSet) {
	fs.IntVar(&o.n, "n", 4096, "leaves")
	fs.IntVar(&o.leaf, "leaf", 1, "leaves a task counts")
	fs.BoolVar(&o.wrong, "wrong", false, "give a wrong answer")
	fs.BoolVar(&o.fail, "fail", false, "fail")
	if o.clash {
		fs.Duration("latency", 0, "a flag advise has too")
	}
}

func (o *splitOptions) Job() (cli.Job, error) {
	if o.leaf < 1 {
		return nil, fmt.Errorf("--leaf %d: want at least 1", o.leaf)
	}
	return splitJob{n: o.n, leaf: o.leaf, wrong: o.wrong, fail: o.fail}, nil
}

func newSplitOptions() cli.Options { return new(splitOptions) }

// adviseConfig is a program that asks for the advise verb.
var adviseConfig = withAdvise(cli.Config{Name: "prog", Programs: []cli.Program{
	{Name: "split", Options: newSplitOptions, Grain: &cli.Grain{Flag: "leaf", Values: []string{"1", "8", "64"}}},
	{Name: "plain", Options: newSplitOptions},
	{Name: "clash", Options: func() cli.Options { return &splitOptions{clash: true} }},
}})

// withAdvise adds the advise verb to cfg, as a program that asks for it
// does.
func withAdvise(cfg cli.Config) cli.Config {
	cfg.Commands = append(cfg.Commands, advise.Command(cfg))
	return cfg
}

// measured skips the ping-pong: these tests are of the command line.
var measured = []string{"--startup", "30us", "--per-byte", "0.5"}

// TestCommandBadInput: each mistake exits 2 (usage) or 1 (the program
// cannot be recorded) with a message that says what to do.
func TestCommandBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"advise"}, 2, "advise needs a program"},
		{[]string{"advise", "nope"}, 2, `"nope"`},
		{[]string{"advise", "split", "--nodes", "0"}, 2, `--nodes "0": want node counts of 1 or more`},
		{[]string{"advise", "split", "--nodes", "2,x"}, 2, `--nodes "2,x"`},
		{[]string{"advise", "split", "--efficiency", "1.5"}, 2, "--efficiency 1.5"},
		{[]string{"advise", "split", "--workers", "0"}, 2, "--workers 0"},
		{[]string{"advise", "split", "--sched", "juggling"}, 2, "juggling"},
		{[]string{"advise", "split", "--startup", "1ms"}, 2, "--startup and --per-byte go together"},
		{[]string{"advise", "split", "--per-byte", "0"}, 2, "--startup and --per-byte go together"},
		{[]string{"advise", "split", "--startup", "0s", "--per-byte", "1"}, 2, "want a start-up cost above 0"},
		{[]string{"advise", "split", "--leaf", "4"}, 2, "--leaf is what advise tunes for split"},
		{[]string{"advise", "split", "--grains", "1,0"}, 2, "--leaf 0: want at least 1"},
		{[]string{"advise", "plain", "--grains", "1,8"}, 2, "plain has no grain flag"},
		{[]string{"advise", "plain", "--inline", "load:x"}, 2, "--inline"},
		{[]string{"advise", "clash"}, 2, "clash defines --latency, which advise uses"},
		{append([]string{"advise", "plain", "--fail"}, measured...), 1, "cannot record plain --fail=true: the disk is full"},
		{append([]string{"advise", "plain", "--wrong"}, measured...), 1, "wrong answer"},
		{append([]string{"advise", "plain", "--max-tasks", "100"}, measured...), 1, "spawns more than 100 tasks with inlining off"},
	} {
		code, _, stderr := clitest.Exec(t, adviseConfig, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

// TestCommandProgram: a program's own binary advises on it: the grains it
// names are recorded and weighed, and the advice is one of them, with a
// command line that follows it.
func TestCommandProgram(t *testing.T) {
	args := append([]string{"advise", "split", "-n", "2048", "--nodes", "1,2,4", "--workers", "1", "--json"}, measured...)
	code, rep, stderr := clitest.Exec(t, adviseConfig, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d\n%s", args, code, stderr)
	}
	opts := rep["options"].([]any)
	if len(opts) != 3 || rep["grain_flag"] != "--leaf" {
		t.Fatalf("options %v, grain flag %v", opts, rep["grain_flag"])
	}
	rec := rep["advice"].(map[string]any)["recommended"].(map[string]any)
	grain := rec["grain"].(string)
	if grain != "1" && grain != "8" && grain != "64" {
		t.Fatalf("recommended grain %q", grain)
	}
	cmd := rep["command"].(string)
	if !strings.HasPrefix(cmd, "prog run split --n=2048 --leaf="+grain+" ") {
		t.Errorf("command %q", cmd)
	}
	// Without a grain flag, the inlining thresholds are the options.
	args = append([]string{"advise", "plain", "-n", "512", "--nodes", "2", "--inline", "load:1,load:4", "--json"}, measured...)
	code, rep, stderr = clitest.Exec(t, adviseConfig, args...)
	if code != 0 || len(rep["options"].([]any)) != 2 {
		t.Fatalf("%v: exit %d, %v\n%s", args, code, rep["options"], stderr)
	}
}

// spin works a few microseconds a leaf.
func spin(leaves int) {
	x := 0
	for i := range leaves * 2000 {
		x ^= i
	}
	sink = x
}

var sink int

// TestCommandInUsage: a program with the verb lists it in its usage, and
// advise -h lists the programs and advise's own flags; a program without
// it has no advise at all.
func TestCommandInUsage(t *testing.T) {
	var out, errb strings.Builder
	if code := cli.Exec(adviseConfig, []string{"help"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "prog advise PROGRAM [program flags] [flags]") {
		t.Errorf("help: exit %d, want the advise line in:\n%s", code, out.String())
	}
	errb.Reset()
	if code := cli.Exec(adviseConfig, []string{"advise", "-h"}, &out, &errb); code != 0 || !strings.Contains(errb.String(), "  split") || !strings.Contains(errb.String(), "--max-tasks") {
		t.Errorf("advise -h: exit %d, want the programs and advise's flags in:\n%s", code, errb.String())
	}
	plain := adviseConfig
	plain.Commands = nil
	out.Reset()
	cli.Exec(plain, []string{"help"}, &out, io.Discard)
	if strings.Contains(out.String(), "advise") {
		t.Errorf("a program without the verb lists it:\n%s", out.String())
	}
}
