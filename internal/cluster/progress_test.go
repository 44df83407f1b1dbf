package cluster

import (
	"runtime"
	"testing"

	"github.com/tsys-go/tsys/internal/sched"
)

// TestJobProgressSumsTheJobsNodes: the units of the job's nodes add up,
// the total is the largest named, and another job's, on the same nodes
// or others, are left out.
func TestJobProgressSumsTheJobsNodes(t *testing.T) {
	snaps := []Snapshot{
		{Node: "root", Jobs: []JobShare{{Job: "a1", Progress: sched.Progress{Done: 5, Total: 100}}}},
		{Node: "n2", Jobs: []JobShare{{Job: "b2", Progress: sched.Progress{Done: 50, Total: 1000}}, {Job: "a1", Progress: sched.Progress{Done: 7}}}},
		{Node: "n3", Jobs: []JobShare{{Job: "b2", Progress: sched.Progress{Done: 9, Total: 1000}}}},
		{Node: "n4"}, // idle
	}
	if got, want := JobProgress(snaps, "a1"), (sched.Progress{Done: 12, Total: 100}); got != want {
		t.Errorf("JobProgress(a1) = %+v, want %+v", got, want)
	}
	if got := JobProgress(snaps, ""); got.Reported() {
		t.Errorf("JobProgress of no job = %+v, want nothing reported", got)
	}
}

// TestReadMemory: the heap and, on Linux, the resident set are read, and
// the resident set holds at least the heap.
func TestReadMemory(t *testing.T) {
	m := readMemory()
	if m.HeapBytes <= 0 {
		t.Errorf("heap %d bytes", m.HeapBytes)
	}
	if runtime.GOOS == "linux" && m.RSSBytes < m.HeapBytes {
		t.Errorf("resident set %d bytes, less than the heap's %d", m.RSSBytes, m.HeapBytes)
	}
}
