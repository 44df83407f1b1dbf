package report

import (
	"bytes"
	"encoding/json"
	"testing"
)

// statsKeys are the names docs/CLI.md gives the counters of `stats`.
var statsKeys = []string{"spawns", "inlined", "tasks_run", "local_steals",
	"steal_attempts", "remote_steals", "tasks_sent", "tasks_received",
	"bytes_sent", "messages_sent", "max_deque", "blocked_waits", "idle_ns",
	"steal_requests", "steal_answers", "steal_wait_ns", "useful_ns",
	"status_messages", "status_bytes", "stolen_from", "busy_ns", "work_ns",
	"tasks_rerun", "late_results", "tasks_returned", "prefetched", "ran_dry", "backups",
	"lifelines"}

// TestEveryCountersObjectHasTheDocumentedKeys: in the --json object,
// `stats` and each `per_node` entry's `stats`, and each `per_worker`
// entry, at the top and in a `per_node` entry, have every counter
// docs/CLI.md names, zero ones included.
func TestEveryCountersObjectHasTheDocumentedKeys(t *testing.T) {
	var r Report
	if err := json.Unmarshal([]byte(`{"per_node":[{"node":"a","per_worker":[{}]}],"per_worker":[{}]}`), &r); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var obj struct {
		Stats     map[string]any   `json:"stats"`
		PerWorker []map[string]any `json:"per_worker"`
		PerNode   []struct {
			Stats     map[string]any   `json:"stats"`
			PerWorker []map[string]any `json:"per_worker"`
		} `json:"per_node"`
	}
	if err := json.Unmarshal(buf.Bytes(), &obj); err != nil || len(obj.PerWorker) != 1 || len(obj.PerNode) != 1 || len(obj.PerNode[0].PerWorker) != 1 {
		t.Fatalf("%v: %s", err, buf.String())
	}
	for what, m := range map[string]map[string]any{"stats": obj.Stats, "per_worker": obj.PerWorker[0],
		"per_node stats": obj.PerNode[0].Stats, "per_node per_worker": obj.PerNode[0].PerWorker[0]} {
		for _, k := range statsKeys {
			if _, ok := m[k]; !ok {
				t.Errorf("%s lacks %q: %v", what, k, m)
			}
		}
	}
}
