package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tsys-go/tsys/advise"
	"github.com/tsys-go/tsys/cli"
	"github.com/tsys-go/tsys/tsys"
)

var double = tsys.Register("cliexample.double", func(c *tsys.Ctx, n int) int { return 2 * n })

// A program's whole command line: its main would call cli.Main(config),
// which gives it run, node, drain, jobs, token and version.
var config = cli.Config{Name: "doubler", Programs: []cli.Program{{
	Name:    "double",
	Summary: "twice N (-n N)",
	Options: func() cli.Options { return new(doubleOptions) },
}}}

// doubleOptions are a run of double's options, bound to its flags.
type doubleOptions struct{ n int }

func (o *doubleOptions) Flags(fs *flag.FlagSet) { fs.IntVar(&o.n, "n", 1, "the number to double") }

func (o *doubleOptions) Job() (cli.Job, error) {
	if o.n < 0 {
		return nil, fmt.Errorf("-n %d: want 0 or more", o.n)
	}
	return cli.TaskJob(double, o.n, map[string]any{"n": o.n}), nil
}

// Exec runs one command line in this process and returns the exit code:
// what a program's own tests call.
func ExampleExec() {
	var out bytes.Buffer
	code := cli.Exec(config, []string{"run", "double", "-n", "21", "--workers", "2"}, &out, io.Discard)
	first, _, _ := strings.Cut(out.String(), "\n")
	fmt.Println(code, first)

	code = cli.Exec(config, []string{"run", "triple"}, io.Discard, io.Discard)
	fmt.Println(code)
	// Output:
	// 0 double: 42
	// 2
}

// A run's options: run defines their flags (Flags), parses the command
// line into them and makes the Job (Job); the error of Job is a mistake
// on the command line, exit 2, its message what the user reads.
func ExampleOptions() {
	code := cli.Exec(config, []string{"run", "double", "-n", "-3"}, io.Discard, os.Stdout)
	fmt.Println(code)
	// Output:
	// doubler: -n -3: want 0 or more
	// 2
}

// TaskJob is the Job of a program whose work is one root task: it runs
// the task on the runtime it is given, and reports its value.
func ExampleTaskJob() {
	j := cli.TaskJob(double, 5, map[string]any{"n": 5})
	res, _, err := j.Run(context.Background(), tsys.New(tsys.Workers(1)))
	fmt.Println(j.Params(), res.Text, err)
	// Output: map[n:5] 10 <nil>
}

// squareJob squares n as a task, and is also a SerialJob (--serial runs
// it without the runtime) and a Verifier (its answer is checked).
type squareJob struct{ n, want int }

var square = tsys.Register("cliexample.square", func(c *tsys.Ctx, n int) int { return n * n })

func (j squareJob) Params() map[string]any { return map[string]any{"n": j.n} }
func (j squareJob) Run(ctx context.Context, rt *tsys.Runtime) (cli.Result, tsys.Stats, error) {
	v, st, err := tsys.Run(ctx, rt, square, j.n)
	return cli.Result{Value: v, Text: fmt.Sprintf("%d squared is %d", j.n, v)}, st, err
}
func (j squareJob) Serial() (cli.Result, error) {
	return cli.Result{Value: j.n * j.n, Text: fmt.Sprintf("%d squared is %d", j.n, j.n*j.n)}, nil
}
func (j squareJob) Verify(r cli.Result) (bool, error) {
	if r.Value != j.want {
		return true, fmt.Errorf("%v, want %d", r.Value, j.want)
	}
	return true, nil
}

type squareOptions struct{ n, want int }

func (o *squareOptions) Flags(fs *flag.FlagSet) {
	fs.IntVar(&o.n, "n", 3, "the number to square")
	fs.IntVar(&o.want, "want", 9, "the square the answer is checked against")
}
func (o *squareOptions) Job() (cli.Job, error) { return squareJob{o.n, o.want}, nil }

var squarer = cli.Config{Name: "squarer", Programs: []cli.Program{{
	Name: "square", Options: func() cli.Options { return new(squareOptions) },
}}}

// A Job that is a Verifier has its answer checked: --json reports
// "verified", and a wrong answer fails the run (exit 1).
func ExampleVerifier() {
	cfg := squarer
	var out bytes.Buffer
	code := cli.Exec(cfg, []string{"run", "square", "-n", "4", "--want", "16", "--json"}, &out, io.Discard)
	var r struct{ Verified bool }
	json.Unmarshal(out.Bytes(), &r)
	fmt.Println(code, r.Verified)

	code = cli.Exec(cfg, []string{"run", "square", "-n", "4", "--want", "15"}, io.Discard, os.Stdout)
	fmt.Println(code)
	// Output:
	// 0 true
	// squarer: square: wrong answer: 16, want 15
	// 1
}

// A Job that is a SerialJob runs with --serial, without the runtime: the
// baseline the parallel runs are measured against. A program whose Job
// is not one refuses --serial (exit 2).
func ExampleSerialJob() {
	var out bytes.Buffer
	code := cli.Exec(squarer, []string{"run", "square", "-n", "5", "--want", "25", "--serial"}, &out, io.Discard)
	first, _, _ := strings.Cut(out.String(), "\n")
	fmt.Println(code, first)
	fmt.Println(cli.Exec(config, []string{"run", "double", "--serial"}, io.Discard, io.Discard))
	// Output:
	// 0 square: 5 squared is 25
	// 2
}

// A program's own verb: its flags parsed with ParseFlags (-h is not an
// error), a mistake reported with Usagef (exit 2, the message saying
// what to write).
func ExampleCommand() {
	cfg := cli.Config{Name: "doubler", Commands: []cli.Command{{
		Name: "twice", Usage: "[-v] N", Summary: "print twice N",
		Run: func(args []string, stdout, stderr io.Writer) error {
			fs := cli.NewFlagSet("doubler twice", stderr)
			verbose := fs.Bool("v", false, "say what is doubled")
			if err := cli.ParseFlags(fs, args); err != nil {
				return err
			}
			var n int
			if _, err := fmt.Sscan(fs.Arg(0), &n); fs.NArg() != 1 || err != nil {
				return cli.Usagef("twice: want one whole number N, got %q", fs.Args())
			}
			if *verbose {
				fmt.Fprintf(stdout, "twice %d: ", n)
			}
			fmt.Fprintln(stdout, 2*n)
			return nil
		},
	}}}
	fmt.Println(cli.Exec(cfg, []string{"twice", "-v", "21"}, os.Stdout, io.Discard))
	fmt.Println(cli.Exec(cfg, []string{"twice", "many"}, os.Stdout, os.Stdout))
	// Output:
	// twice 21: 42
	// 0
	// doubler: twice: want one whole number N, got ["many"]
	// 2
}

// ParseFlags returns a bad flag as bad usage, which says where the flags
// are listed, and -h as flag.ErrHelp, after the flag set (NewFlagSet) has
// written the error or the help to the stderr it was given.
func ExampleParseFlags() {
	var stderr bytes.Buffer
	fs := cli.NewFlagSet("doubler twice", &stderr)
	fs.Bool("v", false, "say what is doubled")
	fmt.Println(cli.ParseFlags(fs, []string{"-x"}))
	fmt.Println(errors.Is(cli.ParseFlags(fs, []string{"-h"}), flag.ErrHelp))
	fmt.Println(strings.Contains(stderr.String(), "Usage of doubler twice"))
	// Output:
	// flag provided but not defined: -x (doubler twice --help lists the flags it takes)
	// true
	// true
}

// Usagef is the error of a mistake on the command line: Exec (and Main)
// print it after the program's name and exit 2.
func ExampleUsagef() {
	cfg := cli.Config{Name: "doubler", Commands: []cli.Command{{
		Name: "never", Summary: "refuse every command line",
		Run: func(args []string, stdout, stderr io.Writer) error {
			return cli.Usagef("never: there is nothing to write; run doubler help")
		},
	}}}
	fmt.Println(cli.Exec(cfg, []string{"never"}, io.Discard, os.Stdout))
	// Output:
	// doubler: never: there is nothing to write; run doubler help
	// 2
}

// growOptions are double's options and a leaf size, for advise to tune.
type growOptions struct {
	doubleOptions
	leaf int
}

func (o *growOptions) Flags(fs *flag.FlagSet) {
	o.doubleOptions.Flags(fs)
	fs.IntVar(&o.leaf, "leaf", 1, "a task's size (a real program splits by it)")
}

// A program that names its grain flag and asks for the advise verb
// (package advise): `advise` weighs the values given, each recorded on
// one worker and replayed on the node counts asked about, and recommends
// one, with the run command line that follows it.
// (--startup and --per-byte give the message costs, so the example skips
// the ping-pong; the choice itself depends on this machine's timings.)
func ExampleGrain() {
	cfg := cli.Config{Name: "doubler", Programs: []cli.Program{{
		Name:    "double",
		Options: func() cli.Options { return new(growOptions) },
		Grain:   &cli.Grain{Flag: "leaf", Values: []string{"1", "16"}},
	}}}
	cfg.Commands = append(cfg.Commands, advise.Command(cfg))
	var out bytes.Buffer
	code := cli.Exec(cfg, []string{"advise", "double", "--nodes", "1,2", "--startup", "20us", "--per-byte", "0.5", "--json"}, &out, io.Discard)
	var r struct {
		GrainFlag string `json:"grain_flag"`
		Options   []any  `json:"options"`
		Command   string `json:"command"`
	}
	json.Unmarshal(out.Bytes(), &r)
	fmt.Println(code, r.GrainFlag, len(r.Options), strings.HasPrefix(r.Command, "doubler run double --leaf="))
	// Output: 0 --leaf 2 true
}
