// Package apps is the catalog of the programs tsys ships: fib, nqueens,
// UTS, NAS EP and a ray tracer. Each lives in its own package as registered
// tasks plus a plain serial Go version (the T_S baseline of every ratio);
// this package gives them one shape for the command line and the benchmark
// matrix: flags, a job that runs on a runtime, the serial run, and a check
// of the answer against published values or the serial version.
//
// To add an app: write its tasks and its serial version in a package of
// its own under apps/, then its options (a cli.Options: its flags, and
// the job they make, a cli.SerialJob and a cli.Verifier) and one
// register line in catalog.go; the command line,
// tsys bench and the tests of this package then know it. A program of
// one's own that is not one of tsys's apps is a cli.Program in its own
// binary instead (examples/).
package apps
