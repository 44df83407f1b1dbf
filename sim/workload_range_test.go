package sim

import (
	"strings"
	"testing"
)

// TestRTWorkloadRefusesWrappingSizes: the simulator's rt workload refuses
// sizes past rt's limits instead of converting them to int32, where
// 4294967396 wrapped to 100.
func TestRTWorkloadRefusesWrappingSizes(t *testing.T) {
	for _, app := range []string{"rt:w=4294967396", "rt:h=4294967297", "rt:level=4294967297"} {
		if _, err := ParseWorkload(app); err == nil || !strings.Contains(err.Error(), "want a whole number from 1 to") {
			t.Errorf("--app %s: %v; want the range refused", app, err)
		}
	}
}
