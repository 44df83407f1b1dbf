package main

import "io"

func benchCommand(args []string, stdout, stderr io.Writer) error {
	return usagef("bench: not built yet")
}
