package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/tsys-go/tsys/cluster"
)

// drainCommand runs `tsys drain ADDR`: the node whose task transport
// listens at ADDR (its banner's "tasks" address) leaves the cluster
// gracefully, and the command reports when it is out.
func drainCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tsys drain", flag.ContinueOnError)
	fs.SetOutput(stderr)
	keyFile := fs.String("key-file", "", "the cluster's key file, if it has one")
	timeout := fs.Duration("timeout", time.Minute, "how long the node may take to finish the tasks it started")
	bind := fs.String("bind", "127.0.0.1:0", "where this command listens for the node's answer (an address the node can reach)")
	asJSON := fs.Bool("json", false, "print the result as one JSON object")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tsys drain [flags] ADDR\n\nADDR is the node's task address, as its banner prints it (\"tasks HOST:PORT\").")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if fs.NArg() != 1 {
		return usagef("drain: want the node's task address HOST:PORT, got %d arguments", fs.NArg())
	}
	if *timeout <= 0 {
		return usagef("--timeout %v: want more than 0", *timeout)
	}
	var key []byte
	if *keyFile != "" {
		var err error
		if key, err = cluster.ReadKeyFile(*keyFile); err != nil {
			return usageError{err.Error()}
		}
	}
	addr := fs.Arg(0)
	rep, err := cluster.RequestDrain(context.Background(), addr, *bind, key, *timeout)
	if err != nil {
		return err
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
