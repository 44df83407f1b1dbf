package cli

import "syscall"

// childAttr makes a node process that --nodes starts end with the run
// that started it: killed (kill -9, an OOM kill, a test's timeout), the
// run cannot stop its nodes, and a node, which waits for jobs for good,
// would live on alone. Linux signals the child when the thread that
// started it ends; Go ends a thread only with the process or with a
// goroutine that locked it, which the run never does while its nodes
// serve it.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
