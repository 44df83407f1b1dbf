package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
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
	Flags: func(fs *flag.FlagSet) func() (cli.Job, error) {
		n := fs.Int("n", 1, "the number to double")
		return func() (cli.Job, error) {
			return cli.TaskJob(double, *n, map[string]any{"n": *n}), nil
		}
	},
}}}

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

// TaskJob is the Job of a program whose work is one root task: it runs
// the task on the runtime it is given, and reports its value.
func ExampleTaskJob() {
	j := cli.TaskJob(double, 5, map[string]any{"n": 5})
	res, _, err := j.Run(context.Background(), tsys.New(tsys.Workers(1)))
	fmt.Println(j.Params(), res.Text, err)
	// Output: map[n:5] 10 <nil>
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

// CheckRun checks a run's command line without running it, as a script
// or a benchmark driver does before a long matrix of runs.
func ExampleCheckRun() {
	fmt.Println(cli.CheckRun(config, []string{"double", "-n", "4"}))
	fmt.Println(cli.CheckRun(config, []string{"double", "-m", "4"}))
	// Output:
	// <nil>
	// flag provided but not defined: -m
}

// A program that names its grain flag and asks for the advise verb
// (package advise): `advise` weighs the values given, each recorded on
// one worker and replayed on the node counts asked about, and recommends
// one, with the run command line that follows it.
// (--startup and --per-byte give the message costs, so the example skips
// the ping-pong; the choice itself depends on this machine's timings.)
func ExampleGrain() {
	cfg := cli.Config{Name: "doubler", Programs: []cli.Program{{
		Name: "double",
		Flags: func(fs *flag.FlagSet) func() (cli.Job, error) {
			n := fs.Int("n", 1, "the number to double")
			fs.Int("leaf", 1, "a task's size (a real program splits by it)")
			return func() (cli.Job, error) { return cli.TaskJob(double, *n, nil), nil }
		},
		Grain: &cli.Grain{Flag: "leaf", Values: []string{"1", "16"}},
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
