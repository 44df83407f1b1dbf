package uts

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Tree types (-t), numbered as in the reference UTS so command lines carry over.
const (
	Binomial  = 0
	Geometric = 1
	Hybrid    = 2
)

// Geometric shape functions (-a), numbered as in the reference UTS.
const (
	Linear = 0
	ExpDec = 1
	Cyclic = 2
	Fixed  = 3
)

// MaxNumChildren caps the children of every node except the binomial root;
// the cap is part of the definition, so published counts depend on it.
const MaxNumChildren = 100

// Params selects one tree. Every field is a fixed-size number so that
// encoding/binary can carry a Params inside task arguments.
type Params struct {
	Type        int32   // -t: Binomial, Geometric or Hybrid
	Shape       int32   // -a: geometric shape function
	GenMx       int32   // -d: gen_mx, the depth scale of the geometric shapes
	B0          float64 // -b: root branching factor (and geometric b0)
	Q           float64 // -q: binomial probability of a node having children
	M           int32   // -m: binomial number of children
	RootSeed    int32   // -r: root seed
	ShiftDepth  float64 // -f: hybrid switch depth, as a fraction of gen_mx
	Granularity int32   // -g: SHA-1 repetitions per child (cost knob only)
}

// DefaultParams returns the reference UTS defaults, which are also the
// values assumed for flags absent from a tree's command line.
func DefaultParams() Params {
	return Params{
		Type:        Geometric,
		Shape:       Linear,
		GenMx:       6,
		B0:          4.0,
		Q:           0.15,
		M:           4,
		RootSeed:    0,
		ShiftDepth:  0.5,
		Granularity: 1,
	}
}

// Validate reports every problem at once so a user fixes a command line
// in one go.
func (p Params) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf("uts: "+format, a...)) }
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

	geo := p.Type == Geometric || p.Type == Hybrid
	bin := p.Type == Binomial || p.Type == Hybrid
	switch p.Type {
	case Binomial, Geometric, Hybrid:
	default:
		bad("unknown tree type -t %d (want 0 binomial, 1 geometric, 2 hybrid)", p.Type)
	}
	if p.Shape < Linear || p.Shape > Fixed {
		bad("unknown shape -a %d (want 0 linear, 1 exp-dec, 2 cyclic, 3 fixed)", p.Shape)
	}
	if !finite(p.B0) || p.B0 < 0 {
		bad("branching factor -b %v must be a finite number >= 0", p.B0)
	} else if p.Type == Binomial && p.B0 >= math.MaxInt32 {
		// The binomial root expands floor(b0) children at once.
		bad("branching factor -b %v too large for a binomial root", p.B0)
	}
	if geo && p.GenMx <= 0 {
		bad("gen_mx -d %d must be > 0 for a geometric or hybrid tree", p.GenMx)
	}
	if bin && (!(p.Q >= 0) || p.Q > 1) {
		bad("probability -q %v must be in [0,1]", p.Q)
	}
	if p.M < 0 {
		bad("number of children -m %d must be >= 0", p.M)
	}
	if p.Type == Hybrid && (!finite(p.ShiftDepth) || p.ShiftDepth < 0) {
		bad("shift depth -f %v must be a finite number >= 0", p.ShiftDepth)
	}
	if p.Granularity < 1 {
		bad("granularity -g %d must be >= 1", p.Granularity)
	}
	return errors.Join(errs...)
}

// String renders the parameters as a reference UTS command line, listing
// only the flags that matter for the tree type (and non-default knobs), so
// it reads like the published tree tables and parses back via RegisterFlags.
func (p Params) String() string {
	var sb strings.Builder
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	// Flag order follows the published tables (binomial puts -r last).
	switch p.Type {
	case Binomial:
		fmt.Fprintf(&sb, "-t %d -b %s -q %s -m %d -r %d", p.Type, f(p.B0), f(p.Q), p.M, p.RootSeed)
	case Geometric:
		fmt.Fprintf(&sb, "-t %d -a %d -d %d -b %s -r %d", p.Type, p.Shape, p.GenMx, f(p.B0), p.RootSeed)
	default:
		fmt.Fprintf(&sb, "-t %d -a %d -d %d -b %s -r %d -q %s -m %d",
			p.Type, p.Shape, p.GenMx, f(p.B0), p.RootSeed, f(p.Q), p.M)
	}
	if p.Type == Hybrid && p.ShiftDepth != DefaultParams().ShiftDepth {
		fmt.Fprintf(&sb, " -f %s", f(p.ShiftDepth))
	}
	if p.Granularity != 1 {
		fmt.Fprintf(&sb, " -g %d", p.Granularity)
	}
	return sb.String()
}

// int32Value exists because package flag has no int32 binding and the
// fields must stay int32 to keep Params fixed-size.
type int32Value struct{ p *int32 }

func (v int32Value) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.FormatInt(int64(*v.p), 10)
}

func (v int32Value) Set(s string) error {
	n, err := strconv.ParseInt(s, 0, 32)
	if err != nil {
		return err
	}
	*v.p = int32(n)
	return nil
}

// RegisterFlags binds the reference UTS single-letter flags to p; the
// current values of p become the flag defaults.
func (p *Params) RegisterFlags(fs *flag.FlagSet) {
	fs.Var(int32Value{&p.Type}, "t", "tree type: 0 binomial, 1 geometric, 2 hybrid")
	fs.Var(int32Value{&p.Shape}, "a", "geometric shape: 0 linear, 1 exp-dec, 2 cyclic, 3 fixed")
	fs.Var(int32Value{&p.GenMx}, "d", "gen_mx: depth scale of the geometric shapes")
	fs.Float64Var(&p.B0, "b", p.B0, "root branching factor (geometric b0)")
	fs.Var(int32Value{&p.RootSeed}, "r", "root seed")
	fs.Float64Var(&p.Q, "q", p.Q, "binomial: probability that a node has children")
	fs.Var(int32Value{&p.M}, "m", "binomial: number of children of a non-leaf")
	fs.Float64Var(&p.ShiftDepth, "f", p.ShiftDepth, "hybrid: switch to binomial at depth f*gen_mx")
	fs.Var(int32Value{&p.Granularity}, "g", "SHA-1 repetitions per child (compute cost only)")
}
