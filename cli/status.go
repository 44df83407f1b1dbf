package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/tsys-go/tsys/internal/cluster"
	"github.com/tsys-go/tsys/internal/sched"
	"github.com/tsys-go/tsys/internal/statusline"
)

// The live status: while a job runs, tsys run draws one line on stderr,
// when it is a terminal, with the job's elapsed time, nodes, rates and
// the progress its tasks report (tsys.Ctx.AddProgress). It waits
// statusAfter before its first line, so that a short job leaves the
// terminal as it was, and erases its line when the job ends, so that the
// report starts on a clean one.

// statusAfter is how long a job runs before the status shows.
const statusAfter = time.Second

// statusEvery is how often the status is redrawn: about as often as a
// person reads it, and as the dashboard polls the nodes.
const statusEvery = time.Second

// liveSample is what the status reads of the running job.
type liveSample struct {
	nodes    int
	tasks    int64 // task frames run, on every node
	steals   int64 // tasks taken from another worker or another node
	progress sched.Progress
}

// showStatus says whether a run draws the live status on stderr.
func (c *runConfig) showStatus(stderr io.Writer) bool {
	return !c.common.quiet && !c.common.json && statusline.IsTerminal(stderr)
}

// liveStatus draws the job's status on stderr from sample, every
// statusEvery, when the run shows one (showStatus); the function it
// returns stops it and erases its line.
func (c *runConfig) liveStatus(stderr io.Writer, sample func() liveSample) (stop func()) {
	if !c.showStatus(stderr) {
		return func() {}
	}
	start := time.Now() // before the ticker's start, so that its first tick is statusAfter in
	t := time.NewTicker(statusEvery)
	stopDrawing := drawStatus(statusline.New(stderr), sample, t.C, start)
	return func() {
		t.Stop()
		stopDrawing()
	}
}

// drawStatus redraws line at each tick once the job, started at start,
// has run statusAfter. The ticks carry the time, so that a test drives
// the status with a clock of its own. stop returns once the drawing
// goroutine has, with the line erased.
func drawStatus(line *statusline.Line, sample func() liveSample, ticks <-chan time.Time, start time.Time) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		var last liveSample
		lastAt := start
		for {
			select {
			case <-quit:
				return
			case now := <-ticks:
				if now.Sub(start) < statusAfter {
					continue
				}
				s := sample()
				line.Show(statusText(now.Sub(start), s, last, now.Sub(lastAt)))
				last, lastAt = s, now
			}
		}
	}()
	return func() {
		close(quit)
		<-done
		line.Clear()
	}
}

// statusText is one status line: s's rates are over the interval since
// last.
func statusText(elapsed time.Duration, s, last liveSample, interval time.Duration) string {
	per := func(n int64) string {
		if interval <= 0 {
			return "0"
		}
		return siCount(float64(n) / interval.Seconds())
	}
	nodes := "1 node"
	if s.nodes != 1 {
		nodes = fmt.Sprintf("%d nodes", s.nodes)
	}
	text := fmt.Sprintf("tsys: %s, %s, %s tasks/s, %s steals/s", elapsed.Round(100*time.Millisecond), nodes,
		per(s.tasks-last.tasks), per(s.steals-last.steals))
	switch p := s.progress; {
	case p.Total > 0:
		text += fmt.Sprintf(" %s %d%% %d/%d", statusline.Bar(p.Done, p.Total, 20), min(100, 100*p.Done/p.Total), p.Done, p.Total)
	case p.Done > 0:
		text += fmt.Sprintf(", %d done", p.Done)
	}
	return text
}

// siCount writes a count for people: 950, 12.3k, 4.5M.
func siCount(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.1fG", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.1fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.1fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

// poolSample reads the job of one node from its pool.
func poolSample(pool *sched.Pool) func() liveSample {
	return func() liveSample {
		s := liveSample{nodes: 1, progress: pool.View().Progress()}
		for _, w := range pool.View().Live(time.Now()) {
			s.tasks += w.TasksRun
			s.steals += w.LocalSteals
		}
		return s
	}
}

// statusTimeout is how long a status waits for the other nodes' answers:
// a node that answers later is left out of that line.
const statusTimeout = 300 * time.Millisecond

// clusterSample reads the job rooted on node from the snapshots of the
// nodes that serve it, as the dashboard does: a stats request to each
// node a second, the cost of watching.
func clusterSample(ctx context.Context, node *cluster.Node) func() liveSample {
	return func() liveSample {
		snaps := node.ClusterSnapshot(ctx, statusTimeout)
		job := snaps[0].Job // this node's own, the root's
		var s liveSample
		for _, sn := range snaps {
			if sn.Job != job || job == "" {
				continue
			}
			s.nodes++
			s.steals += sn.Net.RemoteSteals
			for _, w := range sn.Workers {
				s.tasks += w.TasksRun
				s.steals += w.LocalSteals
			}
		}
		s.progress = cluster.JobProgress(snaps, job)
		return s
	}
}
