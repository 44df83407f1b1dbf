package advise_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/tsys-go/tsys/advise"
	"github.com/tsys-go/tsys/cli"
	"github.com/tsys-go/tsys/tsys"
)

// half counts n down to ones in halves, a task a half.
var half *tsys.Task[int, int]

func init() { half = tsys.Register("adviseexample.half", halve) }

func halve(c *tsys.Ctx, n int) int {
	if n < 2 {
		return n
	}
	other := half.Spawn(c, n/2)
	return half.Call(c, n-n/2) + other.Get(c)
}

// halfOptions are the half program's options: the number to split.
type halfOptions struct{ n int }

func (o *halfOptions) Flags(fs *flag.FlagSet) {
	fs.IntVar(&o.n, "n", 1000, "the number to split down to ones")
}

func (o *halfOptions) Job() (cli.Job, error) { return cli.TaskJob(half, o.n, nil), nil }

// A program asks for the advise verb by adding it to its commands; a
// program that does not links no simulator and no calibration. Here the
// program has no grain flag, so advise weighs the inlining thresholds
// given, on the node count asked about. (--startup and --per-byte give
// the message costs, so the example skips the ping-pong.)
func ExampleCommand() {
	cfg := cli.Config{Name: "halver", Programs: []cli.Program{{
		Name:    "half",
		Options: func() cli.Options { return new(halfOptions) },
	}}}
	cfg.Commands = append(cfg.Commands, advise.Command(cfg))
	var out bytes.Buffer
	code := cli.Exec(cfg, []string{"advise", "half", "-n", "4096", "--nodes", "2", "--inline", "load:1,load:8",
		"--startup", "20us", "--per-byte", "0.5", "--json"}, &out, io.Discard)
	var r advise.Report
	json.Unmarshal(out.Bytes(), &r)
	fmt.Println(code, r.App, len(r.Options), r.Advice.Recommended.Nodes, strings.HasPrefix(r.Command, "halver run half --n=4096 --inline=load:"))
	// Output: 0 half 2 2 true
}
