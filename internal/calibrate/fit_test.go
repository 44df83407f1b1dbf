package calibrate

import (
	"math"
	"strings"
	"testing"
	"time"
)

// line makes the points of one-way = startup + perByte x bytes, exactly.
func line(startup time.Duration, perByte float64, sizes ...int) []Point {
	var ps []Point
	for _, n := range sizes {
		ps = append(ps, Point{Bytes: n, OneWay: startup + time.Duration(perByte*float64(n))})
	}
	return ps
}

func TestFitFindsTheLine(t *testing.T) {
	for _, c := range []struct {
		points  []Point
		startup time.Duration
		perByte float64
	}{
		{line(20*time.Microsecond, 0.5, 0, 1<<10, 16<<10, 256<<10), 20 * time.Microsecond, 0.5},
		{line(3*time.Microsecond, 0.25, 1000, 2000), 3 * time.Microsecond, 0.25},
		{line(time.Millisecond, 0, 0, 100, 10000), time.Millisecond, 0},
		// Points off the line by +-1 us, symmetric about it: the fit is
		// the line itself.
		{[]Point{{0, 9 * time.Microsecond}, {0, 11 * time.Microsecond}, {1000, 11 * time.Microsecond}, {1000, 13 * time.Microsecond}},
			10 * time.Microsecond, 2},
		// Least squares through three points not on a line: x 0, 1, 2
		// and y 0, 3, 3 ns give y = 1 + 1.5 x.
		{[]Point{{0, 0}, {1, 3}, {2, 3}}, 1, 1.5},
	} {
		startup, perByte, err := Fit(c.points)
		if err != nil {
			t.Errorf("%v: %v", c.points, err)
			continue
		}
		if startup != c.startup || math.Abs(float64(perByte)-c.perByte) > 1e-12 {
			t.Errorf("%v: got %v + %v, want %v + %v ns/B", c.points, startup, perByte, c.startup, c.perByte)
		}
	}
}

// TestFitStaysPhysical: where noise tilts the best line below 0 in start-up
// or per byte, Fit gives the best line with neither below 0.
func TestFitStaysPhysical(t *testing.T) {
	// Falling with size: the best flat line is the mean, 20 ns.
	startup, perByte, err := Fit([]Point{{0, 30}, {100, 20}, {200, 10}})
	if err != nil || startup != 20 || perByte != 0 {
		t.Errorf("falling points: got %v + %v, %v; want 20ns + 0", startup, perByte, err)
	}
	// Rising from below the origin (y = 2x - 100 at x 100, 200, 300): the
	// best line through the origin, slope sum(xy)/sum(xx) = 220000/140000.
	startup, perByte, err = Fit([]Point{{100, 100}, {200, 300}, {300, 500}})
	if err != nil || startup != 0 || math.Abs(float64(perByte)-11.0/7) > 1e-12 {
		t.Errorf("points below the origin: got %v + %v, %v; want 0 + 11/7 ns/B", startup, perByte, err)
	}
}

func TestFitRefuses(t *testing.T) {
	for _, c := range []struct {
		points []Point
		want   string
	}{
		{nil, "no point"},
		{[]Point{{64, 1}, {64, 2}}, "two sizes at least"},
		{[]Point{{-1, 1}, {64, 2}}, "must be at least 0"},
		{[]Point{{0, -1}, {64, 2}}, "must be at least 0"},
	} {
		if _, _, err := Fit(c.points); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want an error with %q", c.points, err, c.want)
		}
	}
}

func TestNsPerByte(t *testing.T) {
	p := NsPerByte(0.5)
	if p.Of(1<<20) != 524288*time.Nanosecond || p.Seconds() != 0.5e-9 || p.String() != "0.5 ns/B" {
		t.Errorf("0.5 ns/B: Of(1 MiB) %v, Seconds %v, String %q", p.Of(1<<20), p.Seconds(), p)
	}
	l := Link{Startup: time.Microsecond, PerByte: 2}
	if l.OneWay(1000) != 3*time.Microsecond {
		t.Errorf("OneWay(1000) of 1us + 2 ns/B: %v", l.OneWay(1000))
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []time.Duration
		want time.Duration
	}{
		{nil, 0}, {[]time.Duration{5}, 5}, {[]time.Duration{9, 1, 5}, 5}, {[]time.Duration{4, 1, 100, 2}, 3},
	} {
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestSizeText(t *testing.T) {
	for n, want := range map[int]string{0: "0 B", 1500: "1500 B", 1 << 10: "1 KiB", 256 << 10: "256 KiB", 16 << 20: "16 MiB"} {
		if got := sizeText(n); got != want {
			t.Errorf("sizeText(%d) = %q, want %q", n, got, want)
		}
	}
}
