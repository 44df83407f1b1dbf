package calibrate

import (
	"fmt"
	"time"
)

// Link is what a message between two nodes costs, as the ping-pong
// measured it: one-way time = Startup + PerByte x bytes.
type Link struct {
	// Startup is a message's start-up cost (Cesar et al.'s mo): the
	// one-way time of an empty message, from the fit.
	Startup time.Duration `json:"startup_ns"`
	// PerByte is the cost of each further byte (their k), from the fit.
	PerByte NsPerByte `json:"per_byte_ns"`
	// Keyed says the messages went sealed, under a cluster key.
	Keyed bool `json:"keyed"`
	// Sizes are the medians the line was fitted to, one per size, for the
	// advisor to show; empty when the user gave Startup and PerByte.
	Sizes []Size `json:"sizes,omitempty"`
}

// Size is what the messages of one size took, one way (half a round trip).
type Size struct {
	Bytes  int           `json:"bytes"`
	Rounds int           `json:"rounds"` // round trips timed
	Median time.Duration `json:"median_ns"`
	Min    time.Duration `json:"min_ns"`
}

// OneWay is the time the fitted line gives a message of bytes bytes.
func (l Link) OneWay(bytes int) time.Duration { return l.Startup + l.PerByte.Of(bytes) }

// sizeText writes a message size as people say it: "0 B", "1 KiB", "1500 B".
func sizeText(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
