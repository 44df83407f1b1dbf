package rt

import "github.com/tsys-go/tsys/tsys"

// Tile is a task of the parallel render: a rectangle of a job's image and
// the largest area a leaf renders itself. As in the NewTS ray tracer, the
// image is bisected into a binary tree of tasks whose leaves render
// rectangles; a task returns its rectangle's RGB pixels, row by row.
type Tile struct {
	Job  Job
	Rect Rect
	Leaf int32
}

// Task renders a tile, splitting it until it is at most Leaf pixels. Its
// pixels are new memory that only its caller reads, so they may be copied
// (ByValue).
var Task *tsys.Task[Tile, []byte]

func init() { Task = tsys.Register("rt.tile", render, tsys.ByValue()) }

func render(c *tsys.Ctx, t Tile) []byte {
	if t.Rect.Area() <= int(max(t.Leaf, 1)) {
		pix := make([]byte, 3*t.Rect.Area())
		SceneFor(t.Job).Render(t.Rect, pix)
		return pix
	}
	a, b := t.Rect.Split()
	first := Task.Fork(c, Tile{Job: t.Job, Rect: a, Leaf: t.Leaf})
	second := Task.Call(c, Tile{Job: t.Job, Rect: b, Leaf: t.Leaf})
	return Join(t.Rect, a, first.Join(c), b, second)
}

// Join combines the pixels of the two halves a and b of r into r's pixels.
func Join(r, a Rect, pa []byte, b Rect, pb []byte) []byte {
	out := make([]byte, 3*r.Area())
	copyRect(out, r, pa, a)
	copyRect(out, r, pb, b)
	return out
}

// copyRect copies the pixels of sub (a part of r) into r's buffer.
func copyRect(dst []byte, r Rect, src []byte, sub Rect) {
	w := int(r.X1 - r.X0)
	sw := int(sub.X1 - sub.X0)
	for y := sub.Y0; y < sub.Y1; y++ {
		d := 3 * (int(y-r.Y0)*w + int(sub.X0-r.X0))
		s := 3 * int(y-sub.Y0) * sw
		copy(dst[d:d+3*sw], src[s:s+3*sw])
	}
}

// WholeTile is the root task of a job.
func WholeTile(j Job, leaf int) Tile {
	return Tile{Job: j, Rect: Rect{X1: j.Width, Y1: j.Height}, Leaf: int32(leaf)}
}

// Rows renders the image row by row as a flat parallel loop: the rows of a
// scene cost unevenly (the sphereflake fills the middle of the image), so it
// is the DOALL shape of Siegell's experiments beside the tree of tiles.
// A piece of the loop appends its rows' RGB pixels to its result; the loop
// joins the pieces in order. The runtime sizes the pieces
// (tsys.RegisterFold).
var Rows = tsys.RegisterFold("rt.rows",
	func() []byte { return nil },
	func(c *tsys.Ctx, j Job, lo, hi int, pix []byte) []byte {
		r := Rect{Y0: int32(lo), X1: j.Width, Y1: int32(hi)}
		at := len(pix)
		pix = append(pix, make([]byte, 3*r.Area())...)
		SceneFor(j).Render(r, pix[at:])
		return pix
	},
	func(a, b []byte) []byte { return append(a, b...) },
	tsys.ByValue())

// Flat is the root task of a flat job: Rows over every row of the image.
// Its loop cuts pieces by factoring rather than in halves when the job's
// context asks for it (package loopsplit, the laboratory's choice).
var Flat = tsys.Register("rt.flat", func(c *tsys.Ctx, j Job) []byte {
	return Rows.Call(c, j, 0, int(j.Height))
})
