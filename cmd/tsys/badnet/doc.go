// Package badnet holds tests only: a real tsys cluster (a seed node, a
// worker node and a job's client, each in a network namespace of its
// own, keyed) runs verified jobs through a user-space network emulator
// (internal/netem: delay, loss, cuts; the kernel here has no netem)
// under the bad networks of issue 37, and with a node cut off from a
// bridge for seconds, which its lenders' backups outrun (backup_test.go).
// It is a package of its own, and
// builds the tsys command itself, so that `go test` runs it beside
// cmd/tsys's own tests rather than after them.
package badnet
