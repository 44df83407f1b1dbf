package cli

import (
	"flag"

	"github.com/tsys-go/tsys/internal/cliflags"
)

// askFlags are what a command that asks one node something takes (tsys
// drain, tsys jobs): the node's task address as its one argument, the
// cluster's key, and where to listen for the answer.
type askFlags struct {
	keyFile, bind string
	addr          string
	key           []byte
}

// register adds the flags and a usage line naming the command, which fs
// is named after.
func (a *askFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&a.keyFile, "key-file", "", "the cluster's key file, if it has one")
	fs.StringVar(&a.bind, "bind", "127.0.0.1:0", "where this command listens for the node's answer (an address the node can reach)")
	cliflags.SetUsage(fs, fs.Name()+" [flags] ADDR", "ADDR is a node's task address, as its banner prints it (\"tasks HOST:PORT\").")
}

// parse reads the command line, the address and the key.
func (a *askFlags) parse(fs *flag.FlagSet, args []string) error {
	if err := ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return Usagef("%s: want a node's task address HOST:PORT, got %d arguments", verbOf(fs), fs.NArg())
	}
	a.addr = fs.Arg(0)
	if checkHostPort("ADDR", a.addr, 1) != nil {
		return Usagef("%s %s: want a node's task address HOST:PORT, the \"tasks HOST:PORT\" its banner prints", verbOf(fs), a.addr)
	}
	if err := checkHostPort("--bind", a.bind, 0); err != nil {
		return err
	}
	if err := checkKeyless("--bind", a.bind, a.keyFile != ""); err != nil {
		return err
	}
	if a.keyFile != "" {
		var err error
		if a.key, err = readKeyFile(a.keyFile, fs.Output()); err != nil {
			return err
		}
	}
	return nil
}
