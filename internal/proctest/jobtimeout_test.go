package proctest

import (
	"testing"
	"time"
)

// TestJobTimeoutGivesRaceBuildsMore: race-built processes, several times
// slower, get the longer bound; plain builds keep 2 minutes.
func TestJobTimeoutGivesRaceBuildsMore(t *testing.T) {
	if got := jobTimeout(false); got != 2*time.Minute {
		t.Errorf("plain build: %v, want 2m", got)
	}
	if got := jobTimeout(true); got != 5*time.Minute {
		t.Errorf("race build: %v, want 5m", got)
	}
}
