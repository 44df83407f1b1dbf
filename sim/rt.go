package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/tsys-go/tsys/apps/rt"
)

// RT is the ray tracer's tree of tiles: the image split in halves
// (rt.Rect.Split) down to tiles of at most Leaf pixels, each costing what
// its pixels cost on the cost map. Inner tasks only split.
type RT struct {
	Job  rt.Job
	Leaf int
	// Map is the cost of one full-size pixel on a coarse grid of Cell x
	// Cell pixel cells, row by row.
	Map CostMap
}

// CostMap is what rendering costs where, measured by the real tracer on
// a smaller image and scaled to the full one.
type CostMap struct {
	Width  int32           `json:"width"`
	Height int32           `json:"height"`
	Cell   int32           `json:"cell"`
	Cols   int32           `json:"cols"`
	Rows   int32           `json:"rows"`
	Pixel  []time.Duration `json:"pixel_ns"` // per full-size pixel, by cell
}

// cellArea is how many pixels of the image cell i covers.
func (m *CostMap) cellArea(i int) int64 {
	cx, cy := int32(i)%m.Cols, int32(i)/m.Cols
	return int64(min(m.Width, (cx+1)*m.Cell)-cx*m.Cell) * int64(min(m.Height, (cy+1)*m.Cell)-cy*m.Cell)
}

// costMapScale is how much smaller the measured image is, per side; its
// cells are costMapCell of its pixels on a side.
const (
	costMapScale = 4
	costMapCell  = 4
)

// newRT makes the workload, reading the cost map from path when it names
// a file, and otherwise measuring it (and writing it to path when one is
// named): measured costs differ from process to process, a saved map
// makes runs repeat exactly.
func newRT(job rt.Job, leaf int, path string) (*RT, error) {
	if err := job.Validate(); err != nil {
		return nil, err
	}
	w := &RT{Job: job, Leaf: leaf}
	if path != "" {
		b, err := os.ReadFile(path)
		switch {
		case err == nil:
			m := &w.Map
			if err := json.Unmarshal(b, m); err != nil {
				return nil, fmt.Errorf("rt cost map %s does not parse as one: %w", path, err)
			}
			if m.Cell <= 0 || m.Cols <= 0 || m.Rows <= 0 || len(m.Pixel) != int(m.Cols*m.Rows) {
				return nil, fmt.Errorf("rt cost map %s is malformed: cell %d, %d x %d cells, %d pixels' costs", path, m.Cell, m.Cols, m.Rows, len(m.Pixel))
			}
			if m.Width != job.Width || m.Height != job.Height || m.Cols != (m.Width+m.Cell-1)/m.Cell || m.Rows != (m.Height+m.Cell-1)/m.Cell {
				return nil, fmt.Errorf("rt cost map %s is of a %dx%d image, the job %dx%d", path, m.Width, m.Height, job.Width, job.Height)
			}
			return w, nil
		case !errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("rt cost map: %w", err)
		}
	}
	w.Map = measureCostMap(job)
	if path != "" {
		b, _ := json.Marshal(w.Map)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return nil, fmt.Errorf("rt cost map: %w", err)
		}
	}
	return w, nil
}

// measureCostMap renders the job at 1/costMapScale of its size, one
// sample a pixel, timing each cell: a full-size pixel of the cell costs
// what a small one did, times the rays per pixel of the full job.
func measureCostMap(job rt.Job) CostMap {
	small := job
	small.Width = max(1, job.Width/costMapScale)
	small.Height = max(1, job.Height/costMapScale)
	small.Samples = 1
	scene := rt.SceneFor(small)
	m := CostMap{Width: job.Width, Height: job.Height, Cell: costMapCell * costMapScale}
	m.Cols = (job.Width + m.Cell - 1) / m.Cell
	m.Rows = (job.Height + m.Cell - 1) / m.Cell
	buf := make([]byte, 3*costMapCell*costMapCell)
	rays := float64(job.Samples * job.Samples)
	for cy := range m.Rows {
		for cx := range m.Cols {
			r := rt.Rect{X0: cx * costMapCell, Y0: cy * costMapCell, X1: min((cx+1)*costMapCell, small.Width), Y1: min((cy+1)*costMapCell, small.Height)}
			var perSmallPixel time.Duration
			if !r.Empty() {
				start := time.Now()
				scene.Render(r, buf[:3*r.Area()])
				perSmallPixel = time.Since(start) / time.Duration(r.Area())
			}
			// A full pixel traces samples^2 rays where a small one traced
			// one.
			m.Pixel = append(m.Pixel, time.Duration(float64(perSmallPixel)*rays))
		}
	}
	return m
}

func (w *RT) Name() string {
	return fmt.Sprintf("rt:%s,leaf=%d", w.Job, w.Leaf)
}

func (w *RT) Root() Task { return rectTask(w.Job.Bounds()) }

func rectTask(r rt.Rect) Task {
	return Task{lo: int64(r.X0)<<32 | int64(uint32(r.Y0)), hi: int64(r.X1)<<32 | int64(uint32(r.Y1))}
}

func (t *Task) rect() rt.Rect {
	return rt.Rect{X0: int32(t.lo >> 32), Y0: int32(uint32(t.lo)), X1: int32(t.hi >> 32), Y1: int32(uint32(t.hi))}
}

// Cost is a leaf tile's pixels on the cost map; an inner tile only splits.
func (w *RT) Cost(t *Task) time.Duration {
	r := t.rect()
	if r.Area() > max(w.Leaf, 1) {
		return 0
	}
	m := &w.Map
	var c time.Duration
	for cy := r.Y0 / m.Cell; cy <= (r.Y1-1)/m.Cell && cy < m.Rows; cy++ {
		for cx := r.X0 / m.Cell; cx <= (r.X1-1)/m.Cell && cx < m.Cols; cx++ {
			ox := min(r.X1, (cx+1)*m.Cell) - max(r.X0, cx*m.Cell)
			oy := min(r.Y1, (cy+1)*m.Cell) - max(r.Y0, cy*m.Cell)
			c += m.Pixel[cy*m.Cols+cx] * time.Duration(ox*oy)
		}
	}
	return c
}

func (w *RT) CallsLast() bool { return true }

func (w *RT) Children(t *Task, into []Task) []Task {
	r := t.rect()
	if r.Area() <= max(w.Leaf, 1) {
		return into
	}
	a, b := r.Split()
	return append(into, rectTask(a), rectTask(b))
}

// scaleTo scales the map so that the whole image costs total: a measured
// serial render (tsys run rt --serial) corrects what rendering a smaller
// image gets wrong of a larger one's caches.
func (m *CostMap) scaleTo(total time.Duration) {
	var sum float64
	for i, p := range m.Pixel {
		sum += float64(p) * float64(m.cellArea(i))
	}
	if sum == 0 {
		return
	}
	f := float64(total) / sum
	for i := range m.Pixel {
		m.Pixel[i] = time.Duration(float64(m.Pixel[i]) * f)
	}
}
