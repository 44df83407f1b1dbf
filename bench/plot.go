package bench

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/tsys-go/tsys/internal/report"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// The plots a benchmark draws, by file name.
const (
	EfficiencyPlot = "efficiency.png" // E_N against nodes, a line per scheduler
	TrafficPlot    = "traffic.png"    // tasks moved and messages against nodes
	WorkersPlot    = "workers.png"    // each worker's busy and idle time
)

// panel is one job under one load: a tile of each plot.
type panel struct {
	title string
	sums  []Summary
}

// panels groups the cells by job and load, in the matrix's order.
func panels(sums []Summary) []panel {
	var out []panel
	index := map[string]int{}
	for _, s := range sums {
		title := s.App
		if s.Cell.Load != (Load{}) {
			title += ", " + s.LoadName
		}
		i, ok := index[title]
		if !ok {
			i = len(out)
			index[title] = i
			out = append(out, panel{title: title})
		}
		out[i].sums = append(out[i].sums, s)
	}
	return out
}

// series are a panel's lines: one per scheduler (and worker count, when
// the matrix has several), a point per node count, the value f of the
// cell. A one-node cell runs no cluster scheduler: it starts every line of
// its worker count.
func (p panel) series(f func(Summary) float64) (names []string, lines []plotter.XYs) {
	workerCounts := map[int]bool{}
	for _, s := range p.sums {
		workerCounts[s.Workers] = true
	}
	type key struct {
		sched   string
		workers int
	}
	var keys []key
	byKey := map[key]plotter.XYs{}
	for _, s := range p.sums {
		if s.Cell.Config.Serial || s.Nodes == 1 {
			continue
		}
		k := key{s.Scheduler, s.Workers}
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], plotter.XY{X: float64(s.Nodes), Y: f(s)})
	}
	for _, s := range p.sums {
		if s.Cell.Config.Serial || s.Nodes != 1 {
			continue
		}
		for _, k := range keys {
			if k.workers == s.Workers && (s.Cell.Config.Sched == "" || s.Cell.Config.Sched == k.sched) {
				byKey[k] = append(byKey[k], plotter.XY{X: 1, Y: f(s)})
			}
		}
	}
	for _, k := range keys {
		xy := byKey[k]
		slices.SortFunc(xy, func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
		name := k.sched
		if len(workerCounts) > 1 {
			name = fmt.Sprintf("%s, %d workers", k.sched, k.workers)
		}
		names = append(names, name)
		lines = append(lines, xy)
	}
	return names, lines
}

// nodeCounts is how many node counts the cells span.
func nodeCounts(sums []Summary) int {
	seen := map[int]bool{}
	for _, s := range sums {
		if !s.Cell.Config.Serial {
			seen[s.Nodes] = true
		}
	}
	return len(seen)
}

// WritePlots draws the plots into dir and returns their file names. The
// plots against nodes need at least two node counts; without them only
// the workers' plot is drawn.
func WritePlots(dir string, r *Results, sums []Summary) ([]string, error) {
	ps := panels(sums)
	var files []string
	if nodeCounts(sums) >= 2 {
		rows := make([][]*plot.Plot, len(ps))
		for i, p := range ps {
			rows[i] = []*plot.Plot{
				linePlot(p, "E_N = T_1 / (N T_N)", func(s Summary) float64 { return s.NodeEfficiency }),
			}
		}
		if err := saveTiles(filepath.Join(dir, EfficiencyPlot), transpose(rows, 2)); err != nil {
			return nil, err
		}
		files = append(files, EfficiencyPlot)
		rows = make([][]*plot.Plot, len(ps))
		for i, p := range ps {
			rows[i] = []*plot.Plot{
				linePlot(p, "tasks moved", func(s Summary) float64 { return s.TasksSent }),
				linePlot(p, "messages (status included)", func(s Summary) float64 { return s.Messages }),
			}
		}
		if err := saveTiles(filepath.Join(dir, TrafficPlot), rows); err != nil {
			return nil, err
		}
		files = append(files, TrafficPlot)
	}
	var rows [][]*plot.Plot
	for _, p := range ps {
		if bp := workersPlot(r, p); bp != nil {
			rows = append(rows, []*plot.Plot{bp})
		}
	}
	if len(rows) > 0 {
		if err := saveTiles(filepath.Join(dir, WorkersPlot), transpose(rows, 2)); err != nil {
			return nil, err
		}
		files = append(files, WorkersPlot)
	}
	return files, nil
}

// transpose lays one-plot rows out cols to a row.
func transpose(rows [][]*plot.Plot, cols int) [][]*plot.Plot {
	var out [][]*plot.Plot
	for i, r := range rows {
		if i%cols == 0 {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], r...)
	}
	return out
}

func linePlot(p panel, ylabel string, f func(Summary) float64) *plot.Plot {
	names, lines := p.series(f)
	lp := LinePanel{Title: p.title, X: "nodes", Y: ylabel}
	for i := range names {
		lp.Lines = append(lp.Lines, Line{Name: names[i], Points: lines[i]})
	}
	return lp.plot()
}

// LinePanel is one tile of lines against node counts: what tsys bench and
// tsys sim plot.
type LinePanel struct {
	Title, X, Y string
	Lines       []Line
}

// Line is one named series of (x, y) points.
type Line struct {
	Name   string
	Points plotter.XYs
}

// SavePanels draws panels into one PNG at path, cols to a row.
func SavePanels(path string, panels []LinePanel, cols int) error {
	var rows [][]*plot.Plot
	for _, p := range panels {
		rows = append(rows, []*plot.Plot{p.plot()})
	}
	return saveTiles(path, transpose(rows, cols))
}

// plot draws the panel: y from 0, whole numbers on x, and head room above
// the highest point that keeps the legend off the lines.
func (p LinePanel) plot() *plot.Plot {
	pl := plot.New()
	pl.Title.Text = p.Title
	pl.X.Label.Text = p.X
	pl.Y.Label.Text = p.Y
	pl.Y.Min = 0
	pl.Legend.Top = true
	pl.Legend.Left = true
	top := 0.0
	var args []any
	for _, l := range p.Lines {
		for _, pt := range l.Points {
			top = max(top, pt.Y)
		}
		args = append(args, l.Name, l.Points)
	}
	pl.Y.Max = max(1, top) * (1 + 0.12*float64(len(p.Lines)))
	if err := plotutil.AddLinePoints(pl, args...); err != nil {
		pl.Title.Text += " (" + err.Error() + ")"
	}
	pl.X.Tick.Marker = integerTicks{}
	return pl
}

// integerTicks marks whole node counts.
type integerTicks struct{}

func (integerTicks) Ticks(lo, hi float64) []plot.Tick {
	// A step of 1, 2 or 5 times a power of ten, for at most 10 marks.
	step := 1.0
	for (hi-lo)/step > 10 {
		switch m := step / math.Pow(10, math.Floor(math.Log10(step))); m {
		case 1:
			step *= 2
		case 2:
			step *= 2.5
		default:
			step *= 2
		}
	}
	var ts []plot.Tick
	for x := math.Ceil(lo/step) * step; x <= hi; x += step {
		ts = append(ts, plot.Tick{Value: x, Label: fmt.Sprint(x)})
	}
	return ts
}

// workersPlot draws, for the largest config of each scheduler in the
// panel, the median run's workers as bars of busy time topped by idle
// time. Nil when no run has more than one worker.
func workersPlot(r *Results, p panel) *plot.Plot {
	var labels []string
	var busy, idle plotter.Values
	top := 0.0
	largest := map[string]Summary{}
	var order []string
	for _, s := range p.sums {
		if s.Cell.Config.Serial {
			continue
		}
		cur, ok := largest[s.Scheduler]
		if !ok {
			order = append(order, s.Scheduler)
		}
		if !ok || s.Nodes*s.Workers > cur.Nodes*cur.Workers {
			largest[s.Scheduler] = s
		}
	}
	for _, name := range order {
		s := largest[name]
		rep := r.medianRun(s)
		if rep == nil {
			continue
		}
		for _, w := range rep.WorkerProfiles() {
			// Node names are random per run; their place in the report
			// (the root's 0) compares across runs.
			labels = append(labels, fmt.Sprintf("%s n%d/w%d", name, w.NodeIndex, w.ID))
			top = max(top, float64(w.Counts.BusyNanos+w.Counts.IdleNanos)/1e6)
			busy = append(busy, float64(w.Counts.BusyNanos)/1e6)
			idle = append(idle, float64(w.Counts.IdleNanos)/1e6)
		}
	}
	if len(labels) < 2 {
		return nil
	}
	pl := plot.New()
	pl.Title.Text = p.title
	pl.Y.Label.Text = "ms"
	pl.Y.Min, pl.Y.Max = 0, top*1.3 // head room for the legend
	pl.Legend.Top = true
	width := vg.Points(14)
	b, err1 := plotter.NewBarChart(busy, width)
	i, err2 := plotter.NewBarChart(idle, width)
	if err1 != nil || err2 != nil {
		return nil
	}
	b.Color = color.RGBA{R: 40, G: 110, B: 200, A: 255}
	i.Color = color.RGBA{R: 220, G: 180, B: 60, A: 255}
	i.StackOn(b)
	pl.Add(b, i)
	pl.Legend.Add("busy", b)
	pl.Legend.Add("idle", i)
	pl.NominalX(labels...)
	pl.X.Tick.Label.Rotation = math.Pi / 4
	pl.X.Tick.Label.XAlign = draw.XRight
	return pl
}

// medianRun is the run of s's cell whose time is nearest its median.
func (r *Results) medianRun(s Summary) *report.Report {
	best := -1
	for k, smp := range r.Samples {
		if r.Cells[smp.Cell].String() != s.Cell.String() {
			continue
		}
		if best < 0 || math.Abs(smp.Report.WallSeconds-s.Median) < math.Abs(r.Samples[best].Report.WallSeconds-s.Median) {
			best = k
		}
	}
	if best < 0 {
		return nil
	}
	return r.Samples[best].Report
}

// saveTiles draws a grid of plots into one PNG.
func saveTiles(path string, rows [][]*plot.Plot) error {
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	for i := range rows {
		for len(rows[i]) < cols {
			rows[i] = append(rows[i], blankPlot())
		}
	}
	const tileW, tileH = 5 * vg.Inch, 3.5 * vg.Inch
	img := vgimg.NewWith(vgimg.UseWH(tileW*vg.Length(cols), tileH*vg.Length(len(rows))), vgimg.UseDPI(96))
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: len(rows), Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := plot.Align(rows, tiles, dc)
	for i := range rows {
		for j := range rows[i] {
			rows[i][j].Draw(canvases[i][j])
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("writing a plot: %w", err)
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}

// blankPlot fills a grid's empty tile.
func blankPlot() *plot.Plot {
	p := plot.New()
	p.HideAxes()
	return p
}
