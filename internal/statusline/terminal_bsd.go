//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package statusline

import "golang.org/x/sys/unix"

const ioctlGetTermios = unix.TIOCGETA
