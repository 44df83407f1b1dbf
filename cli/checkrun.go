package cli

import "io"

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
