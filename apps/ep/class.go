package ep

import (
	"fmt"
	"math"
	"strings"
)

// Class is one NPB EP problem size: 2^M pairs, with the reference sums
// the run must reproduce.
type Class struct {
	Name   string
	M      int
	Sx, Sy float64 // reference sums of X and Y
}

// classes holds the NPB reference sums. S and W are from the task
// definition (and match NPB); A, B and C are NPB 3.x's own reference
// values, from the verification block of NPB's EP (ep.f / ep.c).
var classes = []Class{
	{Name: "S", M: 24, Sx: -3.247834652034740e3, Sy: -6.958407078382297e3},
	{Name: "W", M: 25, Sx: -2.863319731645753e3, Sy: -6.320053679109499e3},
	{Name: "A", M: 28, Sx: -4.295875165629892e3, Sy: -1.580732573678431e4},
	{Name: "B", M: 30, Sx: 4.033815542441498e4, Sy: -2.660669192809235e4},
	{Name: "C", M: 32, Sx: 4.764367927995374e4, Sy: -8.084072988043731e4},
}

// Classes returns all classes, smallest first. The slice is a copy.
func Classes() []Class {
	return append([]Class(nil), classes...)
}

// ParseClass returns the class named s ("S", "W", "A", "B" or "C",
// case-insensitive).
func ParseClass(s string) (Class, error) {
	names := make([]string, len(classes))
	for i, c := range classes {
		if strings.EqualFold(strings.TrimSpace(s), c.Name) {
			return c, nil
		}
		names[i] = c.Name
	}
	return Class{}, fmt.Errorf("ep: unknown class %q (valid: %s)", s, strings.Join(names, ", "))
}

// Pairs returns the number of candidate pairs, 2^M.
func (c Class) Pairs() int64 { return 1 << c.M }

// Batches returns the number of batches, 2^(M-16).
func (c Class) Batches() int { return 1 << (c.M - batchLog) }

// String returns the class name.
func (c Class) String() string { return c.Name }

// Tolerance is the relative error allowed in each sum.
const Tolerance = 1e-8

// Verify reports whether r's sums match c's reference sums to relative
// Tolerance; the error names each sum that is off and by how much.
func (c Class) Verify(r Result) error {
	var bad []string
	check := func(name string, got, ref float64) {
		rel := math.Abs((got - ref) / got)
		if !(rel <= Tolerance) { // also catches NaN and got == 0
			bad = append(bad, fmt.Sprintf("%s = %.15e, want %.15e (relative error %.3g > %g)",
				name, got, ref, rel, Tolerance))
		}
	}
	check("sx", r.Sx, c.Sx)
	check("sy", r.Sy, c.Sy)
	if bad != nil {
		return fmt.Errorf("ep: class %s not verified: %s", c.Name, strings.Join(bad, "; "))
	}
	return nil
}

// Result is the outcome of a range of batches: the sums of the Gaussian
// deviates and the annulus counts. It is fixed-size, so encoding/binary
// can write and read it directly.
type Result struct {
	Sx, Sy float64
	Q      [10]int64 // Q[l] counts pairs with l <= max(|X|,|Y|) < l+1
}

// Add merges o into r.
func (r *Result) Add(o Result) {
	r.Sx += o.Sx
	r.Sy += o.Sy
	for i := range r.Q {
		r.Q[i] += o.Q[i]
	}
}

// Count returns gc, the number of accepted pairs (the sum of Q).
func (r Result) Count() int64 {
	var n int64
	for _, v := range r.Q {
		n += v
	}
	return n
}
