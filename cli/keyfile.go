package cli

import (
	"fmt"
	"io"

	"github.com/tsys-go/tsys/internal/cluster"
)

// readKeyFile reads a --key-file and warns on stderr when others can read
// it: the key is what keeps strangers out of the cluster.
func readKeyFile(path string, stderr io.Writer) ([]byte, error) {
	key, err := cluster.ReadKeyFile(path)
	if err != nil {
		return nil, err
	}
	if w := cluster.KeyFileWarning(path); w != "" {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	return key, nil
}
