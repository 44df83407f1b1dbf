//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package statusline

// isTerminal is false where the terminal's ioctl is not known: no status
// line rather than one that garbles a pipe.
func isTerminal(uintptr) bool { return false }
