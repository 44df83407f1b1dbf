package cli

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// A run's --nodes starts its node processes on this machine, each with a
// memberlist, a transport and workers of its own. Past some count they
// no longer run a job: they flood the machine. localNodeLimit is that
// count, from the cores and the memory there are.
const (
	nodesPerCore = 32       // a generous bound, not a measured one: past it each node's gossip waits behind dozens of others
	nodeMemory   = 64 << 20 // bytes a node process may come to hold: its heap, stacks and buffers, with room to spare
)

// localNodeLimit is how many node processes a machine of cpus cores and
// memAvailable bytes free (0: unknown) can hold.
func localNodeLimit(cpus int, memAvailable uint64) int {
	n := max(2, nodesPerCore*cpus)
	if memAvailable > 0 {
		n = min(n, max(2, int(memAvailable/nodeMemory)))
	}
	return n
}

// checkLocalNodes refuses a --nodes count the machine cannot hold,
// saying what it can and what to do instead.
func (c *command) checkLocalNodes(nodes int) error {
	mem := memAvailable()
	limit := localNodeLimit(runtime.NumCPU(), mem)
	if nodes <= limit {
		return nil
	}
	free := "unknown memory"
	if mem > 0 {
		free = fmt.Sprintf("%.1f GiB available", float64(mem)/(1<<30))
	}
	return Usagef("--nodes %d: this machine can run about %d node processes (%d cores, %s; %d a core, %d MiB each): start nodes on other machines (%s node --join HOST:PORT), or simulate many (tsys sim --nodes %d)",
		nodes, limit, runtime.NumCPU(), free, nodesPerCore, nodeMemory>>20, c.name, nodes)
}

// memAvailable is the memory the kernel says it can give without
// swapping (Linux's MemAvailable), or 0 where it does not say.
func memAvailable() uint64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "MemAvailable:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
