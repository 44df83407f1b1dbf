package cli_test

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"strings"

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

// TaskJob is the Job of a program whose work is one root task.
func ExampleTaskJob() {
	j := cli.TaskJob(double, 5, map[string]any{"n": 5})
	fmt.Println(j.Params())
	// Output: map[n:5]
}
