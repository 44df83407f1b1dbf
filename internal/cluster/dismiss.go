package cluster

import (
	"errors"
	"fmt"
	"sync"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

// Dismiss tells every other member that the work they served is over,
// and how it ended: status is the exit status their processes take (0
// for success) and reason what a failure was. Each hears it through
// ShutdownRequested and reads it with Dismissed. A launched job's rank 0
// (tsys run under srun) ends its other ranks with it, so that each exits
// with the job's status. It returns when every member has it, or says
// which could not be told.
func (n *Node) Dismiss(status uint8, reason string) error {
	m := &shutdown{Status: status, Reason: reason}
	tm := encodeMessage(m)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for id, addr := range n.peers.list() {
		wg.Add(1)
		go func(id clusterpolicy.NodeID, addr string) {
			defer wg.Done()
			if err := n.out.transmitEncoded(addr, m, tm, true, nil); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("%s: %w", id, err))
				mu.Unlock()
			}
		}(id, addr)
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Dismissed is what the peer that dismissed this node said (Dismiss):
// the exit status and why; ok is false if none did.
func (n *Node) Dismissed() (status uint8, reason string, ok bool) {
	m := n.dismissed.Load()
	if m == nil {
		return 0, "", false
	}
	return m.Status, m.Reason, true
}
