package calibrate

import (
	"context"

	"github.com/tsys-go/tsys/apps/fib"
	"github.com/tsys-go/tsys/internal/runtimecore"
	"github.com/tsys-go/tsys/tsys"
)

// forking is the tree the advise verb gives calibration: apps/fib's
// Forking, which a test may import where calibration itself may not.
func forking(ctx context.Context, rt *runtimecore.Runtime, n int) error {
	_, _, err := tsys.Run(ctx, (*tsys.Runtime)(rt), fib.Forking, n)
	return err
}
