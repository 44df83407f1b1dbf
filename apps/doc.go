// Package apps is the catalog of the programs tsys ships: fib, nqueens,
// UTS, NAS EP and a ray tracer. Each lives in its own package as registered
// tasks plus a plain serial Go version (the T_S baseline of every ratio);
// this package gives them one shape for the command line and the benchmark
// matrix: flags, a job that runs on a runtime, the serial run, and a check
// of the answer against published values or the serial version.
package apps
