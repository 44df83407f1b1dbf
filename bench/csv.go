package bench

import (
	"encoding/csv"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"

	"github.com/tsys-go/tsys/sched"
)

// counterNames are sched.Stats' JSON names, in field order: every counter
// a run reports becomes a column.
var counterNames = func() []string {
	t := reflect.TypeFor[sched.Stats]()
	names := make([]string, t.NumField())
	for i := range names {
		names[i], _, _ = strings.Cut(t.Field(i).Tag.Get("json"), ",")
	}
	return names
}()

func counterValues(s sched.Stats) []string {
	v := reflect.ValueOf(s)
	out := make([]string, v.NumField())
	for i := range out {
		out[i] = strconv.FormatInt(v.Field(i).Int(), 10)
	}
	return out
}

// runColumns head runs.csv; the counters follow.
var runColumns = []string{"seq", "rep", "app", "config", "nodes", "workers", "scheduler", "load", "wall_seconds", "verified", "idle_share"}

// WriteRunsCSV writes one row per measured run: what ran, its time, and
// every counter, summed over its nodes.
func WriteRunsCSV(w io.Writer, r *Results) error {
	cw := csv.NewWriter(w)
	cw.Write(append(append([]string{}, runColumns...), counterNames...))
	for _, s := range r.Samples {
		c, rep := r.Cells[s.Cell], s.Report
		row := []string{strconv.Itoa(s.Seq), strconv.Itoa(s.Rep), c.Job.String(), c.Config.String(),
			strconv.Itoa(c.Config.Nodes), strconv.Itoa(c.Config.Workers), c.Config.SchedName(), c.Load.String(),
			strconv.FormatFloat(rep.WallSeconds, 'f', 6, 64), strconv.FormatBool(rep.Verified),
			strconv.FormatFloat(rep.IdleShare(), 'f', 4, 64)}
		cw.Write(append(row, counterValues(rep.Stats)...))
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("writing runs.csv: %w", err)
	}
	return nil
}

// WriteWorkersCSV writes one row per worker per measured run: where each
// worker's time and tasks went.
func WriteWorkersCSV(w io.Writer, r *Results) error {
	cw := csv.NewWriter(w)
	cw.Write(append([]string{"seq", "app", "config", "load", "node", "worker"}, counterNames...))
	for _, s := range r.Samples {
		c := r.Cells[s.Cell]
		for _, wk := range s.Report.WorkerProfiles() {
			row := []string{strconv.Itoa(s.Seq), c.Job.String(), c.Config.String(), c.Load.String(), wk.Node, strconv.Itoa(wk.ID)}
			cw.Write(append(row, counterValues(wk.Counts)...))
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("writing workers.csv: %w", err)
	}
	return nil
}
