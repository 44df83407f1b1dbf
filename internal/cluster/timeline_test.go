package cluster

import (
	"testing"
	"time"
)

// TestClockOffset: the offset of a node whose clock runs ahead is found
// from one exchange whatever the two ways take, as long as they take as
// long; one within the uncertainty of the round trip is taken as none.
func TestClockOffset(t *testing.T) {
	const ms = int64(time.Millisecond)
	for _, c := range []struct {
		name        string
		ahead, away int64 // the node's clock ahead of the root's; one way
		want        time.Duration
	}{
		{"ahead", 500 * ms, 2 * ms, 500 * time.Millisecond},
		{"behind", -300 * ms, 1 * ms, -300 * time.Millisecond},
		{"same clock", 0, 3 * ms, 0},
		{"within the trip", ms / 2, 3 * ms, 0},
	} {
		sent := int64(1e18)
		endAt := sent + c.away + c.ahead // the node's clock on arrival
		at := endAt + 5*ms               // it answered 5 ms later
		arrival := at - c.ahead + c.away // the root's clock on arrival
		if got := clockOffset(&clockReading{EndSentAt: sent, EndAt: endAt, At: at}, arrival); got != c.want {
			t.Errorf("%s: offset %v, want %v", c.name, got, c.want)
		}
	}
}
