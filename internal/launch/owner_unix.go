//go:build unix

package launch

import (
	"io/fs"
	"syscall"
)

// owner is the user who owns a file.
func owner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
