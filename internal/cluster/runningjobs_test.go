package cluster

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestNoJobsIsAnEmptyList: jobs --json of a cluster running nothing gives
// "jobs": [], which scripts can range over, not null.
func TestNoJobsIsAnEmptyList(t *testing.T) {
	b, err := json.Marshal(map[string]any{"jobs": RunningJobs(nil)})
	if err != nil || string(b) != `{"jobs":[]}` {
		t.Errorf("no jobs encode as %s, %v; want {\"jobs\":[]}", b, err)
	}
}

// TestRunningJobsGroupsNodesByJob: each job lists, in the order the jobs
// began, the nodes that take part in it or still hold its tasks, with
// what each gives it, and the tasks every node ran for it.
func TestRunningJobsGroupsNodesByJob(t *testing.T) {
	snaps := []Snapshot{
		{Node: "a", Jobs: []JobShare{
			{Job: "j2", Root: "b", Began: 20, Active: true, Workers: 1, TasksRun: 5},
			{Job: "j1", Root: "a", Began: 10, Rooted: true, Active: true, Workers: 2, TasksRun: 7},
		}},
		{Node: "b", Jobs: []JobShare{
			{Job: "j2", Root: "b", Began: 20, Rooted: true, Active: true, Workers: 2, TasksRun: 1},
			{Job: "j1", Root: "a", Began: 10, Active: false, Holding: 3, Workers: 0, TasksRun: 2},
		}},
		{Node: "c", Jobs: []JobShare{
			{Job: "j1", Root: "a", Began: 10, Active: false, TasksRun: 4}, // left it, holding nothing
		}},
	}
	want := []RunningJob{
		{Job: "j1", Root: "a", BeganNs: 10, Nodes: []string{"a", "b"}, TasksRun: 13, Shares: []NodeShare{
			{Node: "a", Workers: 2, Rooted: true, Active: true}, {Node: "b", Workers: 0, Active: false}}},
		{Job: "j2", Root: "b", BeganNs: 20, Nodes: []string{"a", "b"}, TasksRun: 6, Shares: []NodeShare{
			{Node: "a", Workers: 1, Active: true}, {Node: "b", Workers: 2, Rooted: true, Active: true}}},
	}
	if got := RunningJobs(snaps); !reflect.DeepEqual(got, want) {
		t.Errorf("RunningJobs:\n got %+v\nwant %+v", got, want)
	}
}
