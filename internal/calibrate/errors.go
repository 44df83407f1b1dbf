package calibrate

import (
	"context"
	"fmt"
)

// What each measure's failure tells the user to do instead: give the
// value, which Measure then takes as it is (Options). The flags are tsys
// advise's.
const (
	skipLink  = "pass --startup and --per-byte to skip calibration"
	skipTick  = "pass --tick-cost to skip calibration"
	skipSpawn = "pass --spawn-cost to skip calibration"
)

// overloaded is the error of a measure that did not finish in time,
// saying what did not happen and what to do: a calibration fails for want
// of CPU far more often than for a fault.
func overloaded(skip, format string, args ...any) error {
	return fmt.Errorf("calibration failed: %s: is the machine overloaded? retry, or %s", fmt.Sprintf(format, args...), skip)
}

// cancelled is the error of a measure whose context ended, naming the
// measure; it wraps the context's cause, so errors.Is finds
// context.Canceled or context.DeadlineExceeded.
func cancelled(ctx context.Context, what string) error {
	return fmt.Errorf("calibration cancelled while measuring %s: %w", what, context.Cause(ctx))
}
