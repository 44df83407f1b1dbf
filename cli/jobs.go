package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/tsys-go/tsys/internal/cluster"
)

// jobsCommand runs `tsys jobs ADDR`: what runs where, as the node whose
// task transport listens at ADDR sees the cluster.
func (c *command) jobsCommand(args []string, stdout, stderr io.Writer) error {
	fs := NewFlagSet(c.name+" jobs", stderr)
	var ask askFlags
	ask.register(fs)
	asJSON := fs.Bool("json", false, "print one JSON object: jobs, and every node's state")
	if err := ask.parse(fs, args); err != nil {
		return err
	}
	snaps, err := cluster.RequestCluster(context.Background(), ask.addr, ask.bind, ask.key)
	if err != nil {
		return asUsage(err)
	}
	slices.SortFunc(snaps, func(a, b cluster.Snapshot) int { return strings.Compare(a.Node, b.Node) })
	jobs := cluster.RunningJobs(snaps)
	if *asJSON {
		return json.NewEncoder(stdout).Encode(map[string]any{"jobs": jobs, "nodes": snaps})
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "JOB\tROOT\tNODES (WORKERS)\tTASKS RUN")
	for _, j := range jobs {
		var nodes []string
		for _, n := range j.Shares {
			nodes = append(nodes, fmt.Sprintf("%s(%d)", n.Node, n.Workers))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\n", j.Job, j.Root, strings.Join(nodes, " "), j.TasksRun)
	}
	var idle []string
	for _, s := range snaps {
		if len(s.Jobs) == 0 {
			idle = append(idle, s.Node)
		}
	}
	if len(idle) > 0 {
		fmt.Fprintf(tw, "(idle)\t\t%s\t\n", strings.Join(idle, " "))
	}
	return tw.Flush()
}
