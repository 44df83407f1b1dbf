// Package bench holds the benchmarks behind the numbers in bench/README.md:
// each app serial, on 1 worker and on 2 workers (BenchmarkApps), the
// inlining threshold sweep (BenchmarkInlineK), and the cost of a spawn
// (in package tsys). Ratios are taken within one `go test -bench` run,
// whose -count interleaves the variants so that machine noise hits them
// alike.
package bench
