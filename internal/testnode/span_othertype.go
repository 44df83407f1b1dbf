//go:build testnode_othertype

package main

import "time"

// Span, in the build of another argument type: a field more, as a
// program's next version might have, which the node refuses a job of the
// first for.
type Span struct {
	Lo, Hi, Leaf int64
	Pace         time.Duration
	Hold, Ledger string
	Tag          string
	Stride       int64
}
