package cli

import (
	"flag"
	"fmt"
	"io"

	"github.com/tsys-go/tsys/internal/cliseam"
)

// checkRun checks the command line of `run ARGS` as run would, without
// running the job: nil, or the error run would exit with.
func checkRun(cfg Config, args []string) error {
	c, err := newCommand(cfg)
	if err != nil {
		return err
	}
	_, err = c.parseRun(args, io.Discard)
	return err
}

// The tsys command's benchmark driver checks its runs' command lines, and
// the advise verb makes a program's jobs, through cliseam, which cannot
// import cli.
func init() {
	cliseam.SetCheckRun(func(config any, args []string) error {
		cfg, ok := config.(Config)
		if !ok {
			return fmt.Errorf("cliseam.CheckRun: want a cli.Config, got %T", config)
		}
		return checkRun(cfg, args)
	})
	cliseam.SetJobMaker(func(program any, fs *flag.FlagSet) (any, error) {
		p, ok := program.(Program)
		if !ok {
			return nil, fmt.Errorf("cliseam.JobMaker: want a cli.Program, got %T", program)
		}
		return p.jobMaker(fs), nil
	})
}
