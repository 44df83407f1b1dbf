//go:build !testnode_othertype

package main

import "time"

// Span is a piece of the sum, and how its leaves run and where they say
// so: the whole of it crosses nodes with the task.
type Span struct {
	Lo, Hi, Leaf int64
	Pace         time.Duration
	Hold, Ledger string
	Tag          string
}
