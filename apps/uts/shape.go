package uts

import (
	"math"
	"sync/atomic"
)

// NumChildren returns the number of children of n. It is safe for
// concurrent use and, after the first call for a given tree, costs little
// more than reading the node's random value: the shape function is looked
// up per height rather than recomputed.
func (p *Params) NumChildren(n *Node) int { return p.numChildren(n, nil) }

// numChildren takes the shape table when the caller already holds it (the
// serial search), so the hot loop skips the cache lookup; nil looks it up.
func (p *Params) numChildren(n *Node, t *shapeTable) int {
	u := rngProb(&n.State)
	switch p.Type {
	case Binomial:
		if n.Height == 0 {
			// floor(b0) never exceeds the root cap ceil(b0).
			return int(math.Floor(p.B0))
		}
		return p.binChildren(u)
	case Hybrid:
		// The hybrid root is not special: it follows whichever rule its
		// height selects, with the ordinary cap.
		if !p.useGeo(n.Height) {
			return p.binChildren(u)
		}
	}
	if t == nil {
		t = p.shape()
	}
	return geoChildren(u, t.logQ(p, n.Height))
}

func (p *Params) binChildren(u float64) int {
	if u < p.Q {
		return int(min(p.M, MaxNumChildren))
	}
	return 0
}

// useGeo reports whether a hybrid node at this height follows the
// geometric rule. The product and comparison are in float64 as in the
// reference (height < shiftDepth * gen_mx), so f*gen_mx need not be whole.
func (p *Params) useGeo(height int32) bool {
	return float64(height) < float64(p.ShiftDepth*float64(p.GenMx))
}

// geoChildren is the inverse geometric CDF; logQ is geoLogQ of the node's
// height (0 meaning b_i <= 0).
func geoChildren(u, logQ float64) int {
	if logQ == 0 {
		return 0
	}
	x := math.Floor(math.Log(1-u) / logQ)
	// Compare in float64 first: converting a huge value to int is
	// undefined in the C reference, and anything above the cap is the cap.
	if x >= MaxNumChildren {
		return MaxNumChildren
	}
	return int(x)
}

// geoLogQ returns ln(1-p) with p = 1/(1+b_i) for a node at this height,
// or 0 when b_i <= 0 (no children). The expressions follow the reference
// C operation by operation; the explicit float64 conversions forbid fused
// multiply-adds, since one ulp can move a floor() and change the tree.
func (p *Params) geoLogQ(height int32) float64 {
	bi := p.geoBranching(height)
	if !(bi > 0) {
		return 0
	}
	prob := 1.0 / float64(1.0+bi)
	return math.Log(float64(1.0 - prob))
}

func (p *Params) geoBranching(height int32) float64 {
	b0 := p.B0
	if height == 0 {
		return b0
	}
	d := float64(height)
	g := float64(p.GenMx)
	switch p.Shape {
	case ExpDec:
		return b0 * math.Pow(d, -math.Log(b0)/math.Log(g))
	case Cyclic:
		// Integer comparison, as in the reference (depth > 5 * gen_mx).
		// It decides T2's depth: at 5*gen_mx the sine is ~0 and b_i ~1.
		if int64(height) > 5*int64(p.GenMx) {
			return 0
		}
		return math.Pow(b0, math.Sin(float64(float64(2.0*math.Pi)*d)/g))
	case Fixed:
		if height < p.GenMx {
			return b0
		}
		return 0
	default: // Linear
		return b0 * float64(1.0-d/g)
	}
}

// shapeKey holds exactly the fields that determine geoLogQ, so trees that
// differ only in seed, q, m or granularity share a table.
type shapeKey struct {
	Type, Shape, GenMx int32
	B0, ShiftDepth     float64
}

// shapeTable caches geoLogQ per height: the shape costs a pow, a sin and
// a log, a good part of a SHA-1, yet depends only on the height.
type shapeTable struct {
	key   shapeKey
	byHgt []float64
}

func (t *shapeTable) logQ(p *Params, height int32) float64 {
	if int(height) < len(t.byHgt) {
		return t.byHgt[height]
	}
	return p.geoLogQ(height)
}

// maxTable bounds a table; deeper nodes (only the exp-dec shape or a huge
// gen_mx produce them) fall back to computing on the fly.
const maxTable = 1024

func newShapeTable(p *Params, k shapeKey) *shapeTable {
	// Past these heights every shape gives b_i = 0 (or, for a hybrid,
	// the binomial rule applies), so the table can stop there.
	var n int64
	switch p.Shape {
	case Linear, Fixed:
		n = int64(p.GenMx) + 1
	case Cyclic:
		n = 5*int64(p.GenMx) + 2
	default:
		n = maxTable
	}
	if p.Type == Hybrid {
		n = min(n, int64(math.Ceil(p.ShiftDepth*float64(p.GenMx)))+1)
	}
	t := &shapeTable{key: k, byHgt: make([]float64, max(1, min(n, maxTable)))}
	for h := range t.byHgt {
		t.byHgt[h] = p.geoLogQ(int32(h))
	}
	return t
}

// A few recently used tables, shared by all goroutines without locks:
// NumChildren has no place to keep state (Params must stay a plain
// fixed-size value), and a process rarely searches more than a handful of
// different trees at once, so a small round-robin cache never thrashes in
// practice. Races only cost a duplicate build.
var (
	shapeCache [8]atomic.Pointer[shapeTable]
	shapeNext  atomic.Uint32
)

func (p *Params) shape() *shapeTable {
	k := shapeKey{Type: p.Type, Shape: p.Shape, GenMx: p.GenMx, B0: p.B0}
	if p.Type == Hybrid {
		k.ShiftDepth = p.ShiftDepth
	}
	for i := range shapeCache {
		if t := shapeCache[i].Load(); t != nil && t.key == k {
			return t
		}
	}
	t := newShapeTable(p, k)
	// A NaN key (invalid params) would never hit; do not let it evict others.
	if !math.IsNaN(k.B0) && !math.IsNaN(k.ShiftDepth) {
		shapeCache[(shapeNext.Add(1)-1)%uint32(len(shapeCache))].Store(t)
	}
	return t
}
