package bench

import (
	"github.com/tsys-go/tsys/internal/median"
	"slices"

	"github.com/tsys-go/tsys/internal/report"
)

// Summary is one cell over its repetitions: medians, with the spread of
// the times, and the ratios against the baselines the matrix holds.
type Summary struct {
	Cell      Cell      `json:"-"`
	App       string    `json:"app"`
	Config    string    `json:"config"`
	LoadName  string    `json:"load"`
	Nodes     int       `json:"nodes"`
	Workers   int       `json:"workers"`
	Scheduler string    `json:"scheduler"`
	Seconds   []float64 `json:"seconds"`
	Median    float64   `json:"median_seconds"`
	Min       float64   `json:"min_seconds"`
	Max       float64   `json:"max_seconds"`
	// Speedup is T(1x1)/T, and Efficiency that over nodes x workers.
	Speedup    float64 `json:"speedup_vs_1x1,omitempty"`
	Efficiency float64 `json:"efficiency,omitempty"`
	// NodeEfficiency is E_N = T_1/(N T_N): T_1 on one node of as many
	// workers, T_N on N nodes.
	NodeEfficiency float64 `json:"node_efficiency,omitempty"`
	// VsSerial is T_S/T, T_S the plain serial Go version's time.
	VsSerial    float64 `json:"speedup_vs_serial,omitempty"`
	TasksSent   float64 `json:"median_tasks_sent"`
	BytesSent   float64 `json:"median_bytes_sent"`
	Messages    float64 `json:"median_messages"`
	StatusSent  float64 `json:"median_status_messages"`
	IdleShare   float64 `json:"median_idle_share"`
	StealRatio  float64 `json:"median_steal_ratio"`
	InlineRatio float64 `json:"median_inline_ratio"`
	Verified    bool    `json:"verified"`
	// Failed counts the cell's runs that failed (FirstError says why the
	// first did); its medians are of the others.
	Failed     int    `json:"failed_runs,omitempty"`
	FirstError string `json:"first_error,omitempty"`
}

// Summarize sums up every cell, in the matrix's order.
func (r *Results) Summarize() []Summary {
	out := make([]Summary, len(r.Cells))
	for i, c := range r.Cells {
		reps := r.samples(i)
		s := Summary{Cell: c, App: c.Job.String(), Config: c.Config.String(), LoadName: c.Load.String(),
			Nodes: c.Config.Nodes, Workers: c.Config.Workers, Scheduler: c.Config.SchedName(), Verified: len(reps) > 0}
		if fs := r.failures(i); len(fs) > 0 {
			s.Failed, s.FirstError = len(fs), fs[0].Err
		}
		of := func(f func(*report.Report) float64) float64 {
			xs := make([]float64, len(reps))
			for k, rep := range reps {
				xs[k] = f(rep)
			}
			return Median(xs)
		}
		for _, rep := range reps {
			s.Seconds = append(s.Seconds, rep.WallSeconds)
			s.Verified = s.Verified && rep.Verified
		}
		if len(s.Seconds) > 0 {
			s.Median, s.Min, s.Max = Median(s.Seconds), slices.Min(s.Seconds), slices.Max(s.Seconds)
		}
		s.TasksSent = of(func(r *report.Report) float64 { return float64(r.Stats.TasksSent) })
		s.BytesSent = of(func(r *report.Report) float64 { return float64(r.Stats.BytesSent) })
		s.Messages = of(func(r *report.Report) float64 { return float64(r.Stats.MessagesSent) })
		s.StatusSent = of(func(r *report.Report) float64 { return float64(r.Stats.StatusSent) })
		s.IdleShare = of((*report.Report).IdleShare)
		s.StealRatio = of(func(r *report.Report) float64 { return r.Stats.StealRatio() })
		s.InlineRatio = of(func(r *report.Report) float64 { return r.Stats.InlineRatio() })
		out[i] = s
	}
	for i := range out {
		s := &out[i]
		if s.Cell.Config.Serial || s.Median == 0 {
			continue
		}
		if base := baseline(out, s, func(b *Summary) bool { return b.Cell.Config.Nodes == 1 && b.Cell.Config.Workers == 1 }); base > 0 {
			s.Speedup = base / s.Median
			s.Efficiency = s.Speedup / float64(s.Cell.Config.Nodes*s.Cell.Config.Workers)
		}
		if base := baseline(out, s, func(b *Summary) bool {
			return b.Cell.Config.Nodes == 1 && b.Cell.Config.Workers == s.Cell.Config.Workers
		}); base > 0 {
			s.NodeEfficiency = base / (float64(s.Cell.Config.Nodes) * s.Median)
		}
		if base := serialBaseline(out, s); base > 0 {
			s.VsSerial = base / s.Median
		}
	}
	return out
}

// baseline is the median of the cell of s's job that is, by want, its
// baseline, best matching s: under s's load (a hog on a node the baseline
// lacks leaves it unloaded, so any load will do after that), then of s's
// scheduler (on one node the scheduler has nothing to move).
func baseline(all []Summary, s *Summary, want func(*Summary) bool) float64 {
	best, bestScore := 0.0, -1
	for i := range all {
		b := &all[i]
		if b.Cell.Config.Serial || b.Cell.Job.String() != s.Cell.Job.String() || !want(b) || b.Median == 0 {
			continue
		}
		score := 0
		if b.Cell.Load == s.Cell.Load {
			score += 2
		}
		if b.Cell.Config.Sched == s.Cell.Config.Sched {
			score++
		}
		if score > bestScore {
			best, bestScore = b.Median, score
		}
	}
	return best
}

// serialBaseline is the serial time of s's job, under s's load if the
// matrix ran it so.
func serialBaseline(all []Summary, s *Summary) float64 {
	var any float64
	for _, b := range all {
		if !b.Cell.Config.Serial || b.Cell.Job.String() != s.Cell.Job.String() || b.Median == 0 {
			continue
		}
		if b.Cell.Load == s.Cell.Load {
			return b.Median
		}
		if any == 0 {
			any = b.Median
		}
	}
	return any
}

// Median is the middle of xs (the mean of the middle two for an even
// count); 0 for none.
func Median(xs []float64) float64 { return median.Of(xs) }
