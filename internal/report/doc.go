// Package report is the record of one run: what `tsys run --json` prints
// (its field names are the command line's contract, docs/CLI.md), the
// human summary of it, and the profile of where each node's and worker's
// time and tasks went. The command line writes reports; package bench
// reads them back from the runs it starts.
package report
