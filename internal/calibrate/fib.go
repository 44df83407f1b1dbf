package calibrate

import (
	"context"

	"github.com/tsys-go/tsys/internal/runtimecore"
)

// Fib runs fib(n) on rt, every call with n >= 2 forking one child and
// calling the other, as apps/fib.Forking does in the natural Fork and
// Join code: the tree SpawnCost times and TickCost warms a pool with. rt
// is the runtime beneath tsys; the tree runs on it as a *tsys.Runtime,
// its public name.
// Calibration takes it from its caller (the advise verb) rather than
// importing apps/fib, so that the lab's apps stay above it and a program
// that links calibration links no demo task of its own.
type Fib func(ctx context.Context, rt *runtimecore.Runtime, n int) error

// errNoFib is the error of a measure that needs the tree and was not
// given one.
const errNoFib = "calibrate: no Fib to run: give the fib tree (apps/fib.Forking run on the runtime) that the spawn and tick measures time, or give both costs"
