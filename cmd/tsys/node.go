package main

import "io"

func nodeCommand(args []string, stdout, stderr io.Writer) error {
	return usagef("node: the cluster is not built yet")
}
