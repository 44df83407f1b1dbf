package statusline

import (
	"io"
	"os"
)

// IsTerminal reports whether w is a terminal, where a person watches and
// a status line may redraw itself: a file that answers the terminal's
// ioctl, not merely a character device, which /dev/null is too.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isTerminal(f.Fd())
}
