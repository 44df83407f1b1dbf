package membership

import (
	"testing"
	"time"
)

// TestDeadWithin checks the bound against the figures the issue measured
// (a cut-off root of 4 nodes declared dead 6 to 10 s after the cut, LAN
// profile) and memberlist's arithmetic at the edges: the max(1, log10 n)
// below 10 members, and log10 above.
func TestDeadWithin(t *testing.T) {
	for _, tc := range []struct {
		cfg     Config
		members int
		want    time.Duration
	}{
		{Config{}, 4, 10 * time.Second},
		{Config{}, 2, 6 * time.Second},
		{Config{}, 100, 198*time.Second + 8*time.Second},
		{Config{ProbeInterval: 500 * time.Millisecond, SuspicionMult: 3}, 4, 3*time.Second + 1500*time.Millisecond},
		{Config{Fast: true}, 4, 1200*time.Millisecond + 400*time.Millisecond},
	} {
		if got := tc.cfg.DeadWithin(tc.members); got != tc.want {
			t.Errorf("%+v, %d members: dead within %v, want %v", tc.cfg, tc.members, got, tc.want)
		}
	}
	// The measured 6-10 s fall within the bound; the 2.4 s the formula
	// without the max predicted do not.
	if b := (Config{}).DeadWithin(4); b < 10*time.Second {
		t.Errorf("bound %v is below a measured 10 s", b)
	}
}
