package nqueens

import (
	"context"
	"testing"

	"github.com/tsys-go/tsys/tsys"
)

// TestKnownCounts: the serial search and the task give the published
// counts (OEIS A000170) for every board up to 11, the empty and the
// hopeless ones among them.
func TestKnownCounts(t *testing.T) {
	rt := tsys.New(tsys.Workers(2))
	for n := 1; n <= 11; n++ {
		if got := Serial(Start(n)); got != Known[n] {
			t.Errorf("Serial(%d) = %d, want %d", n, got, Known[n])
		}
		if got, _, err := tsys.Run(context.Background(), rt, Task, Start(n)); err != nil || got != Known[n] {
			t.Errorf("Task(%d) = %d, %v; want %d", n, got, err, Known[n])
		}
	}
}
