package cliseam

import (
	"errors"
	"sync/atomic"
)

// checkRun is package cli's check of a run's command line, which cli
// hands over at init: cliseam cannot import cli, which imports it.
var checkRun atomic.Pointer[func(config any, args []string) error]

// SetCheckRun is how package cli hands over its check; only cli calls it.
func SetCheckRun(f func(config any, args []string) error) { checkRun.Store(&f) }

// CheckRun checks the command line of `run ARGS` for the cli.Config
// config as run would, without running the job: nil, or the error run
// would exit with. tsys bench checks every run of a matrix with it before
// the first starts.
func CheckRun(config any, args []string) error {
	f := checkRun.Load()
	if f == nil {
		return errors.New("cliseam.CheckRun: package cli is not linked into this binary, and only it checks a run")
	}
	return (*f)(config, args)
}
