package cluster

import (
	"runtime"
	"slices"
	"testing"
	"time"

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

// TestLinkBook: a lender's tasks add up over its replies; only a reply to
// a request of this node's counts as an answer, with its wait.
func TestLinkBook(t *testing.T) {
	var b linkBook
	b.answered("b", 3, 2*time.Millisecond, true)
	b.answered("a", 1, 0, false) // unasked
	b.answered("b", 0, 4*time.Millisecond, true)
	want := []Link{{From: "a", Tasks: 1}, {From: "b", Tasks: 3, Answers: 2, WaitNs: int64(6 * time.Millisecond)}}
	if got := b.list(); !slices.Equal(got, want) {
		t.Errorf("links %+v, want %+v", got, want)
	}
}
