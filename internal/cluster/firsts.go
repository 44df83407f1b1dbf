package cluster

import (
	"sync"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

// firsts remembers the peers something happened with, so that what
// repeats per task (a loan a peer cannot run) is said once per peer and
// job, not once per task: a mixed cluster once logged hundreds of lines a
// job. The zero value is empty and ready; it is safe for concurrent use.
type firsts struct {
	mu   sync.Mutex
	seen map[clusterpolicy.NodeID]bool
}

// first records peer and says whether it was not recorded before.
func (f *firsts) first(peer clusterpolicy.NodeID) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.seen[peer] {
		return false
	}
	if f.seen == nil {
		f.seen = map[clusterpolicy.NodeID]bool{}
	}
	f.seen[peer] = true
	return true
}

// has says whether peer was recorded.
func (f *firsts) has(peer clusterpolicy.NodeID) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seen[peer]
}
