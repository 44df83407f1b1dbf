package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/tsys-go/tsys/internal/cluster"
)

// drainCommand runs `tsys drain ADDR`: the node whose task transport
// listens at ADDR (its banner's "tasks" address) leaves the cluster
// gracefully, and the command reports when it is out.
func (c *command) drainCommand(args []string, stdout, stderr io.Writer) error {
	fs := NewFlagSet(c.name+" drain", stderr)
	var ask askFlags
	ask.register(fs)
	timeout := fs.Duration("timeout", time.Minute, "how long the node may take to finish the tasks it started")
	asJSON := fs.Bool("json", false, "print the result as one JSON object")
	if err := ask.parse(fs, args); err != nil {
		return err
	}
	if *timeout <= 0 {
		return Usagef("--timeout %v: want more than 0", *timeout)
	}
	addr := ask.addr
	rep, err := cluster.RequestDrain(context.Background(), addr, ask.bind, ask.key, *timeout)
	if err != nil {
		return asUsage(err)
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(map[string]any{
			"node": addr, "seconds": rep.Took.Seconds(), "tasks_returned": rep.Returned, "tasks_finished": rep.Finished,
		})
	}
	fmt.Fprintf(stdout, "node at %s drained and left in %.3f s: %d borrowed tasks handed back unstarted, %d run to their end\n",
		addr, rep.Took.Seconds(), rep.Returned, rep.Finished)
	return nil
}
