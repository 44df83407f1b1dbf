package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/tsys-go/tsys/cluster"
)

// jobsCommand runs `tsys jobs ADDR`: what runs where, as the node whose
// task transport listens at ADDR sees the cluster.
func jobsCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tsys jobs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var ask askFlags
	ask.register(fs, stderr, "jobs")
	asJSON := fs.Bool("json", false, "print one JSON object: jobs, and every node's state")
	if err := ask.parse(fs, args); err != nil {
		return err
	}
	snaps, err := cluster.RequestCluster(context.Background(), ask.addr, ask.bind, ask.key)
	if err != nil {
		return err
	}
	slices.SortFunc(snaps, func(a, b cluster.Snapshot) int { return strings.Compare(a.Node, b.Node) })
	jobs := jobsOf(snaps)
	if *asJSON {
		return json.NewEncoder(stdout).Encode(map[string]any{"jobs": jobs, "nodes": snaps})
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "JOB\tROOT\tNODES\tTASKS RUN")
	for _, j := range jobs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\n", j.Job, j.Root, strings.Join(j.Nodes, " "), j.TasksRun)
	}
	var idle []string
	for _, s := range snaps {
		if s.Job == "" {
			idle = append(idle, s.Node)
		}
	}
	if len(idle) > 0 {
		fmt.Fprintf(tw, "(idle)\t\t%s\t\n", strings.Join(idle, " "))
	}
	return tw.Flush()
}

// runningJob is one job of the cluster: its root and the nodes serving it.
type runningJob struct {
	Job      string   `json:"job"`
	Root     string   `json:"root"`
	Nodes    []string `json:"nodes"`
	TasksRun int64    `json:"tasks_run"`
}

// jobsOf groups the nodes by the job they serve.
func jobsOf(snaps []cluster.Snapshot) []runningJob {
	var jobs []runningJob
	for _, s := range snaps {
		if s.Job == "" {
			continue
		}
		i := slices.IndexFunc(jobs, func(j runningJob) bool { return j.Job == s.Job })
		if i < 0 {
			jobs = append(jobs, runningJob{Job: s.Job, Root: s.Root})
			i = len(jobs) - 1
		}
		jobs[i].Nodes = append(jobs[i].Nodes, s.Node)
		for _, w := range s.Workers {
			jobs[i].TasksRun += w.TasksRun
		}
	}
	return jobs
}
