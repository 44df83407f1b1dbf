package calibrate

import (
	"context"
	"fmt"
)

// What each measure's failure tells the user to do. A ping-pong's can be
// skipped by giving its costs (tsys advise's --startup and --per-byte,
// which Measure takes as Options.Link); the tick and the spawn are timed
// by CPU time, which load hardly stretches, so only a timeout of a minute
// fails them, and a quieter moment is the remedy.
const (
	skipLink  = "retry, or pass --startup and --per-byte to skip calibration"
	skipTick  = "retry when the machine is less busy"
	skipSpawn = skipTick
)

// overloaded is the error of a measure that did not finish in time,
// saying what did not happen and what to do: a calibration fails for want
// of CPU far more often than for a fault.
func overloaded(skip, format string, args ...any) error {
	return fmt.Errorf("calibration failed: %s: is the machine overloaded? %s", fmt.Sprintf(format, args...), skip)
}

// cancelled is the error of a measure whose context ended, naming the
// measure; it wraps the context's cause, so errors.Is finds
// context.Canceled or context.DeadlineExceeded.
func cancelled(ctx context.Context, what string) error {
	return fmt.Errorf("calibration cancelled while measuring %s: %w", what, context.Cause(ctx))
}
