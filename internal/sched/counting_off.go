//go:build tsys_nocounters

package sched

// counting: see counting.go.
const counting = false
