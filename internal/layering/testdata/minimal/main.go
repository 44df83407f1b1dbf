// Command minimal is the least program a user writes: one registered task
// and cli.Main. The layering tests hold it to the library alone: it links
// no app, simulator, advisor or calibration, and registers no task but
// its own (and the library's).
package main

import (
	"flag"

	"github.com/tsys-go/tsys/cli"
	"github.com/tsys-go/tsys/tsys"
)

var double = tsys.Register("minimal.double", func(_ *tsys.Ctx, n int) int { return 2 * n })

// options are the program's one option, -n.
type options struct{ n int }

func (o *options) Flags(fs *flag.FlagSet) { fs.IntVar(&o.n, "n", 21, "the number to double") }
func (o *options) Job() (cli.Job, error)  { return cli.TaskJob(double, o.n, nil), nil }

func main() {
	cli.Main(cli.Config{Name: "minimal", Programs: []cli.Program{{
		Name:    "double",
		Summary: "twice N (-n N)",
		Options: func() cli.Options { return new(options) },
	}}})
}
