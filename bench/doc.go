// Package bench is the scheduler benchmark of `tsys bench`: a matrix of
// jobs x configs (serial, one node, N nodes under each scheduler) x load
// scenarios, run Reps times in rotating order after a warm-up (matrix.go,
// run.go), summed up into medians and ratios (summary.go), and written as
// CSV, Markdown, Go benchmark lines and gonum plots (csv.go, markdown.go,
// gobench.go, plot.go, folder.go). Each run is a `tsys run --json`
// process whose report (package report) the Runner hands back; presets.go
// names the matrices bench/README.md reports.
//
// Its test files hold the in-process benchmarks behind the rest of
// bench/README.md: each app serial, on 1 worker and on 2 workers
// (BenchmarkApps, BenchmarkRatios), the inlining threshold sweep
// (BenchmarkInlineK); the cost of a spawn is in package tsys. Ratios are
// taken within one `go test -bench` run, whose -count interleaves the
// variants so that machine noise hits them alike.
package bench
