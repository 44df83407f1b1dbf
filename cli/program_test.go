package cli_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tsys-go/tsys/cli"
	"github.com/tsys-go/tsys/tsys"
)

// TestRunsOfOneProgramApart: two command lines of one Config run at once
// (tests in parallel) each get options of their own, so each doubles its
// own -n; run under -race, a shared option would be a race as well as a
// wrong answer.
func TestRunsOfOneProgramApart(t *testing.T) {
	const runs = 8
	outs := make([]bytes.Buffer, runs)
	codes := make([]int, runs)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := []string{"run", "double", "-n", fmt.Sprint(i), "--workers", "1", "--timeout", "1m"}
			codes[i] = cli.Exec(config, args, &outs[i], io.Discard)
		}()
	}
	wg.Wait()
	for i := range runs {
		if first, _, _ := strings.Cut(outs[i].String(), "\n"); codes[i] != 0 || first != fmt.Sprintf("double: %d", 2*i) {
			t.Errorf("run %d: exit %d, %q; want 0 and double: %d", i, codes[i], first, 2*i)
		}
	}
}

// TestOptionsReturningNil: a Program whose Options gives no value fails
// its run with a message that says so, not a panic.
func TestOptionsReturningNil(t *testing.T) {
	cfg := cli.Config{Name: "prog", Programs: []cli.Program{{Name: "p", Options: func() cli.Options { return nil }}}}
	var errb bytes.Buffer
	if code := cli.Exec(cfg, []string{"run", "p"}, io.Discard, &errb); code != 2 || !strings.Contains(errb.String(), `cli.Program "p": Options returned nil`) {
		t.Errorf("exit %d, %q", code, errb.String())
	}
}

// TestDryRunChecksWithoutRunning: run --dry-run makes the job as a run
// would and exits 0 without running it, or exits with the error the run
// would: how a script, and the tsys command's benchmark driver, check a
// batch of runs before they start the first.
func TestDryRunChecksWithoutRunning(t *testing.T) {
	var made, ran atomic.Int32
	cfg := cli.Config{Name: "prog", Programs: []cli.Program{{Name: "p",
		Options: func() cli.Options { return &watchedOptions{made: &made, ran: &ran} }}}}
	var out, errb bytes.Buffer
	if code := cli.Exec(cfg, []string{"run", "p", "-n", "4", "--dry-run"}, &out, &errb); code != 0 || out.Len() != 0 || made.Load() != 1 || ran.Load() != 0 {
		t.Errorf("a good run: exit %d, stdout %q, stderr %q, %d jobs made, %d run; want 0, nothing, one made and none run", code, out.String(), errb.String(), made.Load(), ran.Load())
	}
	out.Reset()
	errb.Reset()
	if code := cli.Exec(cfg, []string{"run", "p", "-n", "-4", "--dry-run"}, &out, &errb); code != 2 || errb.String() != "prog: -n -4: want 0 or more\n" || ran.Load() != 0 {
		t.Errorf("a bad -n: exit %d, stderr %q, %d run; want 2, the job's error, none run", code, errb.String(), ran.Load())
	}
	if code := cli.Exec(cfg, []string{"run", "p", "-n", "4", "--workers", "0", "--dry-run"}, io.Discard, io.Discard); code != 2 || ran.Load() != 0 {
		t.Errorf("a bad --workers: exit %d, %d run; want 2, none run", code, ran.Load())
	}
	if code := cli.Exec(cfg, []string{"run", "p", "-n", "4"}, io.Discard, io.Discard); code != 0 || ran.Load() != 1 {
		t.Errorf("the same run without --dry-run: exit %d, %d run; want 0, one run", code, ran.Load())
	}
}

// watchedOptions are options whose job counts how often it is made and
// run.
type watchedOptions struct {
	n         int
	made, ran *atomic.Int32
}

func (o *watchedOptions) Flags(fs *flag.FlagSet) { fs.IntVar(&o.n, "n", 1, "a count") }

func (o *watchedOptions) Job() (cli.Job, error) {
	if o.n < 0 {
		return nil, fmt.Errorf("-n %d: want 0 or more", o.n)
	}
	o.made.Add(1)
	return watchedJob{Job: cli.TaskJob(double, o.n, nil), ran: o.ran}, nil
}

type watchedJob struct {
	cli.Job
	ran *atomic.Int32
}

func (j watchedJob) Run(ctx context.Context, rt *tsys.Runtime) (cli.Result, tsys.Stats, error) {
	j.ran.Add(1)
	return j.Job.Run(ctx, rt)
}
