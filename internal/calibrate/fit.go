package calibrate

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
)

// NsPerByte is a cost per byte in nanoseconds. It is a float: over
// loopback a byte costs a fraction of a nanosecond, which a time.Duration
// would round to nothing.
type NsPerByte float64

// Seconds is the cost per byte in seconds, the unit of package advise.
func (p NsPerByte) Seconds() float64 { return float64(p) * 1e-9 }

// Of is what bytes bytes cost.
func (p NsPerByte) Of(bytes int) time.Duration {
	return time.Duration(math.Round(float64(p) * float64(bytes)))
}

func (p NsPerByte) String() string {
	return strconv.FormatFloat(float64(p), 'g', 3, 64) + " ns/B"
}

// Point is one message size and the one-way time a message of it took.
type Point struct {
	Bytes  int
	OneWay time.Duration
}

// Fit returns the line OneWay = startup + perByte x Bytes that fits points
// best in the least-squares sense, relative: each point's error is
// weighed as a share of its time (weight 1/OneWay²). A message's times
// vary in proportion to their size, noise and all; with absolute errors
// the largest size alone would set the line, and the start-up cost, far
// smaller than that size's time, would be whatever its noise left over.
//
// The line is the best among those with startup and perByte both at least
// 0: a message costs something to start and more bytes never cost less.
// Noise can tilt the unconstrained line below either bound; the
// constrained optimum then lies on a bound (a flat line, or a line through
// the origin), and Fit returns the better of the two. It needs two
// different sizes at least, no negative size and no time of 0 or less.
func Fit(points []Point) (startup time.Duration, perByte NsPerByte, err error) {
	if len(points) == 0 {
		return 0, 0, errors.New("calibrate: no point to fit a line to")
	}
	distinct := map[int]bool{}
	for _, p := range points {
		if p.Bytes < 0 || p.OneWay <= 0 {
			return 0, 0, fmt.Errorf("calibrate: cannot fit a point of %d bytes and %v: want 0 bytes or more, and a time above 0", p.Bytes, p.OneWay)
		}
		distinct[p.Bytes] = true
	}
	if len(distinct) < 2 {
		return 0, 0, fmt.Errorf("calibrate: %d points of one size cannot tell a start-up cost from a cost per byte: give two sizes at least", len(points))
	}
	// Weighted sums, centred on the weighted means so that the slope
	// stays exact when the sizes are large and their spread small.
	var sw, mx, my float64
	for _, p := range points {
		x, y, w := xyw(p)
		sw += w
		mx += w * x
		my += w * y
	}
	mx, my = mx/sw, my/sw
	var sxx, sxy, xx, xy float64
	for _, p := range points {
		x, y, w := xyw(p)
		sxx += w * (x - mx) * (x - mx)
		sxy += w * (x - mx) * (y - my)
		xx += w * x * x
		xy += w * x * y
	}
	slope := sxy / sxx
	intercept := my - slope*mx
	if slope < 0 || intercept < 0 {
		// The optimum lies on a bound: of the best flat line and the best
		// line through the origin, the one nearer the points. Two sizes
		// differ, so one is above 0 and xx is too.
		slope, intercept = 0, my
		if through := xy / xx; sse(points, through, 0) < sse(points, 0, my) {
			slope, intercept = through, 0
		}
	}
	return time.Duration(math.Round(intercept)), NsPerByte(slope), nil
}

// xyw is a point as the fit reads it: size, time in nanoseconds, weight.
func xyw(p Point) (x, y, w float64) {
	x, y = float64(p.Bytes), float64(p.OneWay)
	return x, y, 1 / (y * y)
}

// sse is the weighted sum of the squared distances of points from the
// line.
func sse(points []Point, slope, intercept float64) float64 {
	var s float64
	for _, p := range points {
		x, y, w := xyw(p)
		d := y - intercept - slope*x
		s += w * d * d
	}
	return s
}
