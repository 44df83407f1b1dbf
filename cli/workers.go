package cli

import "runtime"

// workersPerCore bounds --workers. A worker is a goroutine with a deque,
// and more of them than cores only take turns. At most GOMAXPROCS idle
// workers look for work at once (internal/sched, parkAside), so a job's
// cost grows about linearly with the workers (BenchmarkManyWorkers in
// package tsys; bench/README.md "Many workers"); before that bound it
// grew with their square, seconds for a small job from 3,000 workers on
// this project's 2-core machine. Each looker's round still visits O(W)
// deques, so the bound stays: well below where that shows, and where
// more workers than this are a mistake rather than a plan.
const workersPerCore = 256

// workerLimit is how many workers a node of cpus cores may run.
func workerLimit(cpus int) int { return workersPerCore * max(1, cpus) }

// checkWorkers refuses a --workers count below 1 or past what the
// machine can hold, saying what it can and what to do instead.
func (c *command) checkWorkers(workers int) error {
	if workers < 1 {
		return Usagef("--workers %d: want at least 1", workers)
	}
	// GOMAXPROCS, the default count, may be set past the cores; the
	// default must never be refused.
	cpus := max(runtime.NumCPU(), runtime.GOMAXPROCS(0))
	if limit := workerLimit(cpus); workers > limit {
		return Usagef("--workers %d: a node of this machine runs at most %d workers (%d cores, %d a core; more only take turns on the cores, and each idle one searches all the others): use about as many workers as cores (the default), and more nodes (%s node --join HOST:PORT) for more parallelism",
			workers, limit, cpus, workersPerCore, c.name)
	}
	return nil
}
