package cli

import (
	"fmt"
	"io"

	"github.com/tsys-go/tsys/internal/cliflags"
	"github.com/tsys-go/tsys/internal/monitor"
)

// tokenCommand runs `tsys token --key-file F`: it prints the token that a
// cluster's nodes ask of every request to a routable --http address (but
// /healthz), for Prometheus (a bearer token) and browsers (?token=).
func (c *command) tokenCommand(args []string, stdout, stderr io.Writer) error {
	fs := NewFlagSet(c.name+" token", stderr)
	keyFile := fs.String("key-file", "", "the cluster's key file")
	cliflags.SetUsage(fs, c.name+" token --key-file F", "Prints the token a keyed node's --http asks of every request but /healthz.")
	if err := ParseFlags(fs, args); err != nil {
		return err
	}
	if *keyFile == "" || fs.NArg() > 0 {
		return Usagef("token: want --key-file FILE and nothing else")
	}
	key, err := readKeyFile(*keyFile, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, monitor.Token(key))
	return nil
}
