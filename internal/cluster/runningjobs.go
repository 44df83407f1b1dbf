package cluster

import (
	"cmp"
	"slices"
	"strings"
)

// RunningJob is one job of a cluster as `jobs` shows it (its --json
// "jobs"): its root, the nodes that take part in it, and what each gives
// it.
type RunningJob struct {
	Job      string      `json:"job"`
	Root     string      `json:"root"`
	BeganNs  int64       `json:"began_ns"`
	Nodes    []string    `json:"nodes"`
	Shares   []NodeShare `json:"shares"`
	TasksRun int64       `json:"tasks_run"`
}

// NodeShare is what one node gives a job: the workers that may run its
// tasks there now (its sharing policy's grant).
type NodeShare struct {
	Node    string `json:"node"`
	Workers int    `json:"workers"`
	Rooted  bool   `json:"rooted,omitempty"`
	// Active is false while a node its sharing policy took from the job
	// finishes the job's tasks it had started.
	Active bool `json:"active"`
}

// RunningJobs groups the nodes of snaps by the jobs they take part in,
// in the order of the jobs' arrival: never nil, so that `jobs --json` of
// a cluster running nothing says "jobs": [], which a script can range
// over.
func RunningJobs(snaps []Snapshot) []RunningJob {
	jobs := []RunningJob{}
	for _, s := range snaps {
		for _, js := range s.Jobs {
			i := slices.IndexFunc(jobs, func(j RunningJob) bool { return j.Job == js.Job })
			if i < 0 {
				jobs = append(jobs, RunningJob{Job: js.Job, Root: js.Root, BeganNs: js.Began})
				i = len(jobs) - 1
			}
			jobs[i].TasksRun += js.TasksRun
			if js.Active || js.Holding > 0 {
				jobs[i].Nodes = append(jobs[i].Nodes, s.Node)
				jobs[i].Shares = append(jobs[i].Shares, NodeShare{Node: s.Node, Workers: js.Workers, Rooted: js.Rooted, Active: js.Active})
			}
		}
	}
	slices.SortFunc(jobs, func(a, b RunningJob) int {
		return cmp.Or(cmp.Compare(a.BeganNs, b.BeganNs), strings.Compare(a.Job, b.Job))
	})
	return jobs
}
