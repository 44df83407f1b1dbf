package statusline

import "golang.org/x/sys/unix"

const ioctlGetTermios = unix.TCGETS
