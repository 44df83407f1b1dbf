package cli

import (
	"encoding/json"
	"testing"
)

// TestNoJobsIsAnEmptyList: jobs --json of a cluster running nothing gives
// "jobs": [], which scripts can range over, not null.
func TestNoJobsIsAnEmptyList(t *testing.T) {
	b, err := json.Marshal(map[string]any{"jobs": jobsOf(nil)})
	if err != nil || string(b) != `{"jobs":[]}` {
		t.Errorf("no jobs encode as %s, %v; want {\"jobs\":[]}", b, err)
	}
}
