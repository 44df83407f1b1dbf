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
	keyFile := fs.String("key-file", "", "the cluster's key file, if it has one")
	bind := fs.String("bind", "127.0.0.1:0", "where this command listens for the node's answer (an address the node can reach)")
	asJSON := fs.Bool("json", false, "print one JSON object: jobs, and every node's state")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tsys jobs [flags] ADDR\n\nADDR is a node's task address, as its banner prints it (\"tasks HOST:PORT\").")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if fs.NArg() != 1 {
		return usagef("jobs: want a node's task address HOST:PORT, got %d arguments", fs.NArg())
	}
	var key []byte
	if *keyFile != "" {
		var err error
		if key, err = cluster.ReadKeyFile(*keyFile); err != nil {
			return usageError{err.Error()}
		}
	}
	snaps, err := cluster.RequestCluster(context.Background(), fs.Arg(0), *bind, key)
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
