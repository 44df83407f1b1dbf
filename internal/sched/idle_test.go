package sched

import (
	"strings"
	"testing"

	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/invariant"
)

// TestIdleProtocolThrowsOnAWrongTransition: leaving the looking state
// without having entered it is a scheduler bug, and it stops the program
// with a message rather than leaving executors asleep with work queued.
func TestIdleProtocolThrowsOnAWrongTransition(t *testing.T) {
	p := NewPool(2, inline.Default())
	defer func() {
		r := recover()
		b, ok := r.(invariant.Broken)
		if !ok || !strings.Contains(string(b), "looking") {
			t.Fatalf("recovered %v, want a broken invariant about looking executors", r)
		}
	}()
	p.crew.startLooking()
	p.crew.foundWork()
	p.crew.stopLooking() // one transition too many
}
