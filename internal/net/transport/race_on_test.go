//go:build race

package transport

// raceEnabled: the race detector's instrumentation moves values to the
// heap, so allocation counts are asserted only without it.
const raceEnabled = true
