package cli

import (
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/tsys-go/tsys/internal/cluster"
)

// serve runs a node that serves work (tsys node, or a launched job's
// rank other than 0) until it is told to stop: a drain signal has it
// drain and leave; a peer's dismissal (Dismiss: its job's root at the
// job's end) ends it with the job's status; a drain request or a peer's
// shutdown ends it. With watchRoot, a rank also ends, failed, when its
// job's root (rank 0) is gone from the cluster without dismissing it: it
// was killed, or its host failed.
func serve(node *cluster.Node, watchRoot bool, drainTimeout time.Duration, logger *slog.Logger) error {
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, drainSignals...)
	defer signal.Stop(sig)
	var gone <-chan string
	if watchRoot {
		gone = rootGone(node)
	}
	select {
	case s := <-sig:
		return leave(node, s, sig, drainTimeout, logger)
	case <-node.ShutdownRequested():
		if status, reason, ok := node.Dismissed(); ok {
			// Every rank leaves at once: a leave no peer is left to
			// hear is no failure.
			node.Close()
			if status != 0 {
				return fmt.Errorf("the job failed on rank 0: %s", reason)
			}
			return nil
		}
		logger.Info("stopping: asked by a peer, or drained")
		return node.Close()
	case root := <-gone:
		node.Close()
		if _, _, ok := node.Dismissed(); ok { // its dismissal and its leave crossed
			return nil
		}
		return fmt.Errorf("rank 0 (%s), the job's root, left the cluster without ending the job: it was killed or its host failed, and the job is lost", root)
	}
}

// rootPrefix begins the name of a launched job's rank 0 (resolveLaunch).
const rootPrefix = "rank0@"

// rootGone tells when the cluster's rank 0, once a member, no longer is.
func rootGone(node *cluster.Node) <-chan string {
	gone := make(chan string, 1)
	go func() {
		seen := ""
		for {
			select {
			case <-node.ShutdownRequested():
				return
			case <-time.After(100 * time.Millisecond):
			}
			present := ""
			for _, m := range node.Members() {
				if strings.HasPrefix(m, rootPrefix) {
					present = m
				}
			}
			switch {
			case present != "":
				seen = present
			case seen != "":
				gone <- seen
				return
			}
		}
	}()
	return gone
}
