//go:build !unix

package cli

import (
	"os"
	"syscall"
)

// drainSignals make a serving process drain and leave: Ctrl-C and
// SIGTERM.
var drainSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// warningSignals: this platform has no SIGUSR1.
var warningSignals []os.Signal
