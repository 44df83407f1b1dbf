package cli

import (
	"fmt"
	"io"

	"github.com/tsys-go/tsys/internal/buildinfo"
)

// versionCommand is the version verb (and --version): which build this
// is, so that a bug report or a benchmark result names the code it came
// from.
func (c *command) versionCommand(args []string, stdout io.Writer) error {
	if len(args) > 0 {
		return Usagef("version takes no arguments, got %q: run %s version alone", args[0], c.name)
	}
	fmt.Fprintln(stdout, buildinfo.Version(c.name))
	return nil
}
