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
		// Three points not on a line, x 0, 1000, 2000 bytes and y 1, 2,
		// 4 us: weights 1, 1/4, 1/16 (per us²) make the normal equations
		// 1.3125a + 0.375b' = 1.75 and 0.375a + 0.5b' = 1 (a in us, b' in
		// us per 1000 bytes), so a = 32/33 us and b = 14/11 ns/B.
		{[]Point{{0, time.Microsecond}, {1000, 2 * time.Microsecond}, {2000, 4 * time.Microsecond}}, 970, 14.0 / 11},
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
	// Falling with size, 40, 20 and 10 ns: the best flat line, the
	// weighted mean sum(y/y²)/sum(1/y²) = (1/40 + 1/20 + 1/10) /
	// (1/1600 + 1/400 + 1/100) = 0.175/0.013125 = 40/3 ns.
	startup, perByte, err := Fit([]Point{{0, 40}, {100, 20}, {200, 10}})
	if err != nil || startup != 13 || perByte != 0 {
		t.Errorf("falling points: got %v + %v, %v; want 13ns + 0", startup, perByte, err)
	}
	// Rising from below the origin (y = 2x - 100 at x 100, 200, 300):
	// the best line through the origin, slope sum(x/y)/sum(x²/y²) =
	// (1 + 2/3 + 3/5) / (1 + 4/9 + 9/25) = (34/15) / (406/225) = 255/203.
	startup, perByte, err = Fit([]Point{{100, 100}, {200, 300}, {300, 500}})
	if err != nil || startup != 0 || math.Abs(float64(perByte)-255.0/203) > 1e-12 {
		t.Errorf("points below the origin: got %v + %v, %v; want 0 + 255/203 ns/B", startup, perByte, err)
	}
}

func TestFitRefuses(t *testing.T) {
	for _, c := range []struct {
		points []Point
		want   string
	}{
		{nil, "no point"},
		{[]Point{{64, 1}, {64, 2}}, "two sizes at least"},
		{[]Point{{-1, 1}, {64, 2}}, "want 0 bytes or more"},
		{[]Point{{0, 0}, {64, 2}}, "a time above 0"},
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

func TestSizeText(t *testing.T) {
	for n, want := range map[int]string{0: "0 B", 1500: "1500 B", 1 << 10: "1 KiB", 256 << 10: "256 KiB", 16 << 20: "16 MiB"} {
		if got := sizeText(n); got != want {
			t.Errorf("sizeText(%d) = %q, want %q", n, got, want)
		}
	}
}
