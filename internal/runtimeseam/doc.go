// Package runtimeseam lets the module's own layers reach what a
// tsys.Runtime holds beneath its public surface: the scheduler's pools,
// which the cluster layer connects to other nodes and the command line
// records timelines and task trees on, and the options the runtime was
// made with. A program cannot import it (internal/), so tsys's exported
// names stay the program's.
//
// Package tsys sets Inspect in its init function, before any package that
// imports tsys runs; Inspect is then safe from any goroutine. It is a
// variable rather than an import of tsys because tsys imports the
// scheduler this package names, and the seam must not make a cycle.
package runtimeseam
