package cli

import (
	"fmt"
	"io"

	"github.com/tsys-go/tsys/internal/cluster"
)

// readKeyFile reads a --key-file and warns on stderr when others can read
// it: the key is what keeps strangers out of the cluster. A file it
// cannot read, or too short a key, is bad usage.
func readKeyFile(path string, stderr io.Writer) ([]byte, error) {
	key, err := cluster.ReadKeyFile(path)
	if err != nil {
		return nil, Usagef("--key-file: %v: give the file that holds the cluster's key, the same on every node, or make one: head -c 32 /dev/urandom | base64 > %s", err, path)
	}
	if w := cluster.KeyFileWarning(path); w != "" {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	return key, nil
}
