package launch

import "hash/fnv"

// Derived ports: rank 0 of a job listens on a port its job's number
// chooses, so that every rank finds it with no port typed and two jobs
// whose rank 0 shares a host listen apart. The range sits below Linux's
// ephemeral ports (32768 and up), which the other ranks take: a port of
// the range is free unless another job derived it.
const (
	// PortBase is the range's first port.
	PortBase = 20000
	// portSlots are the ports of one job: one for its long-lived nodes
	// (nodesSlot), the others for its steps (stepSlot).
	portSlots = 8
	// portJobs is how many jobs in a row get ports apart: two jobs
	// collide only when their numbers are a multiple of it apart (and
	// their rank 0 shares a host), which the second one is told.
	portJobs = 1500
	// nodesSlot is the slot of the job's long-lived nodes.
	nodesSlot = 0
)

// Port is the port of slot (0 to 7) of job: from PortBase to
// PortBase+11999.
func Port(job uint64, slot int) int {
	return PortBase + int(job%portJobs)*portSlots + slot%portSlots
}

// stepSlot is a step's slot: steps cycle over the seven that are not the
// nodes'.
func stepSlot(step uint64) int { return 1 + int(step%(portSlots-1)) }

// hashJob is a number for a job its launcher names with text.
func hashJob(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}
