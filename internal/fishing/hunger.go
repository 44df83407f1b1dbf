package fishing

import "github.com/tsys-go/tsys/internal/clusterpolicy"

// hunger is whether the node wants work from its peers. It is hungry
// once a worker found no work at home, until an answer brings tasks or a
// Tick reports the node busy; it is low when a Tick found every worker
// at work and fewer than LowWater tasks ready (prefetch.go). While it
// wants work, the events that free a request slot or a peer send new
// requests themselves, so a node whose workers all parked keeps fishing.
type hunger struct {
	lowWater int // Params.LowWater
	hungry   bool
	low      bool
}

// wants: the node fishes now, hungry or low.
func (h *hunger) wants() bool { return h.hungry || h.low }

// ahead: a request sent now goes out ahead of need, the node being low
// but not hungry.
func (h *hunger) ahead() bool { return !h.hungry }

// starve records that a worker ran out of work at home, and reports
// whether the node was not hungry before.
func (h *hunger) starve() (began bool) {
	began = !h.hungry
	h.hungry = true
	return began
}

// fed records that an answer brought tasks: the node is not hungry.
func (h *hunger) fed() { h.hungry = false }

// topped records that an answer to a request of the node brought tasks:
// it is not low either, until the next Tick says it still is.
func (h *hunger) topped() { h.low = false }

// read reads the node's load on a Tick: whether it is hungry (a worker
// waits and nothing is ready) or low (every worker at work, fewer ready
// tasks than the mark). It reports whether the node became hungry.
func (h *hunger) read(self clusterpolicy.Load) (began bool) {
	wasHungry := h.hungry
	h.hungry = self.Idle > 0 && self.Ready == 0
	h.low = h.lowWater > 0 && self.Idle == 0 && self.Ready < h.lowWater
	return h.hungry && !wasHungry
}
