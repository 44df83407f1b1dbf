package cli

import "runtime"

// workersPerCore bounds --workers. A worker is a goroutine with a deque,
// and more of them than cores only take turns; but the cost of turns is
// not linear: an idle worker makes a round of 2(W-1) steal attempts and
// scans all W deques before it parks, and with thousands of workers on
// few cores the lookers queue behind one another, their spin time lapses,
// they park and are woken again, so every wake costs O(W) and the wakes
// grow with W too. On this project's 2-core machine a small job took
// milliseconds up to about 2,000 workers and seconds from 3,000 on (the
// figures: bench/README.md "Many workers"). A quarter of that knee per
// core leaves the cost linear below the bound on a loaded machine.
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
