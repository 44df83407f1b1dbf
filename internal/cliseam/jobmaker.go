package cliseam

import (
	"errors"
	"flag"
	"sync/atomic"
)

// jobMaker is package cli's way from a program's flags to its job, which
// cli hands over at init, as it does its run check.
var jobMaker atomic.Pointer[func(program any, fs *flag.FlagSet) (any, error)]

// SetJobMaker is how package cli hands over its job maker; only cli calls
// it.
func SetJobMaker(f func(program any, fs *flag.FlagSet) (any, error)) { jobMaker.Store(&f) }

// JobMaker defines the flags of the cli.Program program on fs, as run
// does, and returns the function that makes the job once fs is parsed: a
// func() (cli.Job, error), which the caller asserts. The advise verb,
// which lives above cli, reads programs through it.
func JobMaker(program any, fs *flag.FlagSet) (any, error) {
	f := jobMaker.Load()
	if f == nil {
		return nil, errors.New("cliseam.JobMaker: package cli is not linked into this binary, and only it makes a program's job")
	}
	return (*f)(program, fs)
}
