package rt

import (
	"fmt"
	"math"
)

// Rays leaving a surface start this far out along its normal, so they do not
// hit the surface they leave (the smallest sphere, balls level 6, has radius
// 6.9e-4; coordinates are of order 1, so rounding errors are near 1e-15).
const surfEps = 1e-7

// maxStack bounds the traversal stack; the builders stay far below it
// (balls level 6 needs 46 entries), and finish checks it.
const maxStack = 64

const (
	hitNone = iota
	hitSphere
	hitTri
	hitPlane
)

// boundHit reports whether the ray o+t*d (|d| = 1) meets the bounding sphere
// of n at some t < tmax (or starts inside it).
func boundHit(n *node, o, d vec, tmax float64) bool {
	oc := o.sub(n.c)
	cc := oc.dot(oc) - n.r2
	if cc <= 0 {
		return true // inside
	}
	b := oc.dot(d)
	if b >= 0 {
		return false // outside and moving away
	}
	disc := float64(b*b) - cc
	if disc < 0 {
		return false
	}
	// Entry at -b - sqrt(disc) < tmax  <=>  e < sqrt(disc) with e = -b - tmax.
	e := -b - tmax
	return e <= 0 || float64(e*e) < disc
}

// sphereT returns the nearest t > 0 where the ray meets s, or +Inf.
func sphereT(s *sphere, o, d vec) float64 {
	oc := o.sub(s.c)
	b := oc.dot(d)
	disc := float64(b*b) - (oc.dot(oc) - s.r2)
	if disc < 0 {
		return math.Inf(1)
	}
	sq := math.Sqrt(disc)
	if t := -b - sq; t > 0 {
		return t
	}
	if t := -b + sq; t > 0 {
		return t
	}
	return math.Inf(1)
}

// triT returns the t > 0 where the ray meets triangle tr, or +Inf
// (Moller-Trumbore: solve o + t d = a + u e1 + v e2 by Cramer's rule).
func triT(tr *triangle, o, d vec) float64 {
	p := d.cross(tr.e2)
	det := tr.e1.dot(p)
	if det > -1e-14 && det < 1e-14 {
		return math.Inf(1) // ray parallel to the triangle
	}
	inv := 1 / det
	s := o.sub(tr.a)
	u := float64(s.dot(p) * inv)
	if u < 0 || u > 1 {
		return math.Inf(1)
	}
	q := s.cross(tr.e1)
	v := float64(d.dot(q) * inv)
	if v < 0 || u+v > 1 {
		return math.Inf(1)
	}
	if t := float64(tr.e2.dot(q) * inv); t > 0 {
		return t
	}
	return math.Inf(1)
}

// planeT returns the t > 0 where the ray meets pl (within its extent), or +Inf.
func planeT(pl *plane, o, d vec) float64 {
	den := pl.n.dot(d)
	if den == 0 {
		return math.Inf(1)
	}
	t := pl.o.sub(o).dot(pl.n) / den
	if !(t > 0) {
		return math.Inf(1)
	}
	if pl.ext > 0 {
		q := o.addScaled(d, t).sub(pl.o)
		if math.Abs(q.dot(pl.u)) > pl.ext || math.Abs(q.dot(pl.v)) > pl.ext {
			return math.Inf(1)
		}
	}
	return t
}

// intersect finds the nearest surface along o+t*d, 0 < t < tmax.
//
// It and occluded stay calls of their own, as they are in an ordinary
// build (over Go's inlining budget): the tsys command is built with a
// profile (cmd/tsys/default.pgo), which would otherwise inline both into
// trace, and that slowed the whole render (bench/README.md,
// "Profile-guided optimisation").
//
//go:noinline
func (g *geom) intersect(o, d vec, tmax float64) (t float64, kind int, idx int32) {
	best, kind, idx := tmax, hitNone, int32(-1)
	for i := range g.planes {
		if t := planeT(&g.planes[i], o, d); t < best {
			best, kind, idx = t, hitPlane, int32(i)
		}
	}
	if len(g.nodes) == 0 {
		return best, kind, idx
	}
	var stack [maxStack]int32
	sp := 1 // stack[0] = 0: the root
	for sp > 0 {
		sp--
		n := &g.nodes[stack[sp]]
		if !boundHit(n, o, d, best) {
			continue
		}
		for i := n.s0; i < n.s1; i++ {
			if t := sphereT(&g.spheres[i], o, d); t < best {
				best, kind, idx = t, hitSphere, i
			}
		}
		for i := n.t0; i < n.t1; i++ {
			if t := triT(&g.tris[i], o, d); t < best {
				best, kind, idx = t, hitTri, i
			}
		}
		// Push the children last first, so they are visited in order.
		for k := n.k1 - 1; k >= n.k0; k-- {
			stack[sp] = k
			sp++
		}
	}
	return best, kind, idx
}

// occluded reports whether any surface lies on o+t*d, 0 < t < tmax.
// Never inlined: see intersect.
//
//go:noinline
func (g *geom) occluded(o, d vec, tmax float64) bool {
	for i := range g.planes {
		if planeT(&g.planes[i], o, d) < tmax {
			return true
		}
	}
	if len(g.nodes) == 0 {
		return false
	}
	var stack [maxStack]int32
	sp := 1
	for sp > 0 {
		sp--
		n := &g.nodes[stack[sp]]
		if !boundHit(n, o, d, tmax) {
			continue
		}
		for i := n.s0; i < n.s1; i++ {
			if sphereT(&g.spheres[i], o, d) < tmax {
				return true
			}
		}
		for i := n.t0; i < n.t1; i++ {
			if triT(&g.tris[i], o, d) < tmax {
				return true
			}
		}
		for k := n.k1 - 1; k >= n.k0; k-- {
			stack[sp] = k
			sp++
		}
	}
	return false
}

// sky is the background seen along the unit direction d.
func (g *geom) sky(d vec) vec {
	t := max(d.z, 0)
	return g.horizon.addScaled(g.zenith.sub(g.horizon), math.Sqrt(t))
}

// trace returns the colour seen along the ray o+t*d (|d| = 1) at
// reflection depth depth.
func (s *Scene) trace(o, d vec, depth int32) vec {
	g := s.g
	t, kind, idx := g.intersect(o, d, math.Inf(1))
	if kind == hitNone {
		return g.sky(d)
	}
	p := o.addScaled(d, t)
	var n vec
	var m *material
	var col vec
	switch kind {
	case hitSphere:
		sp := &g.spheres[idx]
		n = p.sub(sp.c).scale(sp.invR)
		m = &g.mats[sp.mat]
		col = m.color
	case hitTri:
		tr := &g.tris[idx]
		n = tr.n
		m = &g.mats[tr.mat]
		col = m.color
	default:
		pl := &g.planes[idx]
		n = pl.n
		m = &g.mats[pl.mat]
		col = m.color
		if m.check > 0 {
			q := p.sub(pl.o)
			cu := math.Floor(q.dot(pl.u) / m.check)
			cv := math.Floor(q.dot(pl.v) / m.check)
			if math.Mod(cu+cv, 2) != 0 {
				col = m.color2
			}
		}
	}
	if n.dot(d) > 0 {
		n = n.scale(-1) // face the viewer: backs of triangles and planes
	}
	po := p.addScaled(n, surfEps) // origin of secondary rays
	r := reflect(d, n)

	c := col.scale(g.ambient)
	for i := range g.lights {
		l := &g.lights[i]
		to := l.pos.sub(po)
		dist := to.length()
		ld := to.scale(1 / dist)
		nl := n.dot(ld)
		if nl <= 0 || g.occluded(po, ld, dist) {
			continue // facing away or in shadow
		}
		c = c.add(col.mul(l.col).scale(float64(m.kd * nl)))
		if m.ks > 0 {
			if rl := r.dot(ld); rl > 0 {
				c = c.addScaled(l.col, float64(m.ks*powi(rl, m.shine)))
			}
		}
	}
	if m.kr > 0 && depth < s.job.MaxDepth {
		c = c.addScaled(s.trace(po, r, depth+1), m.kr)
	}
	return c
}

// toByte maps a colour channel in [0,1] to 0..255, clamping.
func toByte(v float64) byte {
	if !(v > 0) {
		return 0
	}
	if v >= 1 {
		return 255
	}
	return byte(float64(v*255) + 0.5)
}

// pixel computes pixel (x, y) as the mean of Samples x Samples rays through
// the centres of a regular sub-pixel grid, summed in a fixed order: a pure
// function of (x, y) and the job.
func (s *Scene) pixel(x, y int32) (r, g, b byte) {
	var sum vec
	n := s.job.Samples
	eye := s.g.eye
	for j := range n {
		py := float64(y) + float64((float64(j)+0.5)*s.step)
		row := s.base.addScaled(s.dy, py)
		for i := range n {
			px := float64(x) + float64((float64(i)+0.5)*s.step)
			d := row.addScaled(s.dx, px).norm()
			sum = sum.add(s.trace(eye, d, 0))
		}
	}
	sum = sum.scale(s.invCount)
	return toByte(sum.x), toByte(sum.y), toByte(sum.z)
}

// Render renders the pixels of r into dst, 3 bytes (R, G, B) per pixel, row
// after row of r: pixel (x, y) at dst[3*((y-r.Y0)*r.Dx()+(x-r.X0)):]. Every
// pixel depends only on its coordinates and the job, so any partition of the
// image into rectangles, rendered anywhere in any order, assembles to the
// same bytes. Render panics if r is not inside the image or len(dst) !=
// 3*r.Area(). Safe for concurrent use.
func (s *Scene) Render(r Rect, dst []byte) {
	if !r.In(s.job.Bounds()) {
		panic(fmt.Sprintf("rt: Render of %v outside image %v", r, s.job.Bounds()))
	}
	if len(dst) != 3*r.Area() {
		panic(fmt.Sprintf("rt: Render of %v (%d pixels) into %d bytes, want %d", r, r.Area(), len(dst), 3*r.Area()))
	}
	i := 0
	for y := r.Y0; y < r.Y1; y++ {
		for x := r.X0; x < r.X1; x++ {
			dst[i], dst[i+1], dst[i+2] = s.pixel(x, y)
			i += 3
		}
	}
}
