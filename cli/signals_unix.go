//go:build unix

package cli

import (
	"os"
	"syscall"
)

// drainSignals make a serving process drain and leave: Ctrl-C, SIGTERM
// (kill, scancel, SLURM's time limit, Kubernetes scaling down) and
// SIGUSR1, which SLURM sends ahead of the time limit when asked to
// (sbatch --signal=USR1@60).
var drainSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGUSR1}

// warningSignals tell a launched job's root that its time is running
// out: it notes it and runs on, while its other ranks drain.
var warningSignals = []os.Signal{syscall.SIGUSR1}
