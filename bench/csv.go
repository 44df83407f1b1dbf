package bench

import (
	"encoding/csv"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"

	"github.com/tsys-go/tsys/internal/cluster"
)

// counters are cluster.JobStats' fields, those of its embedded
// sched.Stats then cluster.NetStats, in field order: every counter a run
// reports becomes a column, named as in the --json object.
var counters = func() []reflect.StructField {
	var out []reflect.StructField
	for _, f := range reflect.VisibleFields(reflect.TypeFor[cluster.JobStats]()) {
		if !f.Anonymous {
			out = append(out, f)
		}
	}
	return out
}()

// counterNames are the counters' JSON names.
var counterNames = func() []string {
	names := make([]string, len(counters))
	for i, f := range counters {
		names[i], _, _ = strings.Cut(f.Tag.Get("json"), ",")
	}
	return names
}()

func counterValues(s cluster.JobStats) []string {
	v := reflect.ValueOf(s)
	out := make([]string, len(counters))
	for i, f := range counters {
		out[i] = strconv.FormatInt(v.FieldByIndex(f.Index).Int(), 10)
	}
	return out
}

// runColumns head runs.csv; the counters follow, then errorColumn.
var runColumns = []string{"seq", "rep", "app", "config", "nodes", "workers", "scheduler", "load", "wall_seconds", "verified", "idle_share"}

// errorColumn is runs.csv's last: why a run failed, empty for the others.
const errorColumn = "error"

// WriteRunsCSV writes one row per measured run: what ran, its time, and
// every counter, summed over its nodes; and one per failed run, with its
// error and no figures.
func WriteRunsCSV(w io.Writer, r *Results) error {
	cw := csv.NewWriter(w)
	cw.Write(append(append(append([]string{}, runColumns...), counterNames...), errorColumn))
	what := func(seq, rep, cell int) []string {
		c := r.Cells[cell]
		return []string{strconv.Itoa(seq), strconv.Itoa(rep), c.Job.String(), c.Config.String(),
			strconv.Itoa(c.Config.Nodes), strconv.Itoa(c.Config.Workers), c.Config.SchedName(), c.Load.String()}
	}
	for _, s := range r.Samples {
		rep := s.Report
		row := append(what(s.Seq, s.Rep, s.Cell), strconv.FormatFloat(rep.WallSeconds, 'f', 6, 64), strconv.FormatBool(rep.Verified),
			strconv.FormatFloat(rep.IdleShare(), 'f', 4, 64))
		cw.Write(append(append(row, counterValues(rep.Stats)...), ""))
	}
	for _, f := range r.Failures {
		row := append(what(f.Seq, f.Rep, f.Cell), "", "false", "")
		cw.Write(append(append(row, make([]string, len(counterNames))...), f.Err))
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
			cw.Write(append(row, counterValues(cluster.JobStats{Stats: wk.Counts})...))
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("writing workers.csv: %w", err)
	}
	return nil
}
