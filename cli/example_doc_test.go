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

// The example of the package's doc (doc.go), which shows its lines as
// they are here; internal/doccode compiles the doc's copy.

// Sum adds i over a range; the runtime splits it.
var Sum = tsys.RegisterFold("mysum.sum",
	func() int64 { return 0 },
	func(c *tsys.Ctx, _ struct{}, lo, hi int, s int64) int64 {
		for i := lo; i < hi; i++ {
			s += int64(i)
		}
		return s
	},
	func(a, b int64) int64 { return a + b })

// SumBelow is the job's root: Sum over [0, n).
var SumBelow = tsys.Register("mysum.below", func(c *tsys.Ctx, n int) int64 {
	return Sum.Call(c, struct{}{}, 0, n)
})

var mysum = cli.Config{Name: "mysum", Programs: []cli.Program{{
	Name:    "sum",
	Summary: "sum i for i below N (-n N)",
	Options: func() cli.Options { return new(sumOptions) },
}}}

// sumOptions are one run's options, bound to its flags.
type sumOptions struct{ n int }

func (o *sumOptions) Flags(fs *flag.FlagSet) { fs.IntVar(&o.n, "n", 100_000_000, "terms") }

func (o *sumOptions) Job() (cli.Job, error) {
	return cli.TaskJob(SumBelow, o.n, map[string]any{"n": o.n}), nil
}

// The program's main package holds only this: mysum's binary then runs
// the verbs of the tsys command.
func main() { cli.Main(mysum) }

// A whole program: its config, which its main hands to cli.Main, run
// here through Exec, as its tests run it, as the command line `mysum run
// sum -n 1000` would.
func Example_program() {
	var out bytes.Buffer
	code := cli.Exec(mysum, []string{"run", "sum", "-n", "1000", "--workers", "2"}, &out, io.Discard)
	first, _, _ := strings.Cut(out.String(), "\n")
	fmt.Println(code, first)
	// Output: 0 sum: 499500
}
