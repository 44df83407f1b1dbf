package ep

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// TestGenerator checks the generator and jump-ahead against a direct walk
// of the stream.
func TestGenerator(t *testing.T) {
	if got := powMod(A, 2*BatchPairs); got != an {
		t.Fatalf("an = %d, powMod gives %d", an, got)
	}
	x := uint64(Seed)
	for kk := 0; kk < 4; kk++ {
		if got := BatchStart(kk); got != x {
			t.Fatalf("BatchStart(%d) = %d, walking the stream gives %d", kk, got, x)
		}
		for i := 0; i < 2*BatchPairs; i++ {
			x = x * A & mask
		}
	}
	// x*y mod 2^46 on wrapping uint64 agrees with the full 128-bit product.
	for _, p := range [][2]uint64{{A, mask}, {mask, mask}, {an, 1<<45 + 12345}} {
		_, lo := bits.Mul64(p[0], p[1])
		if got := mulMod(p[0], p[1]); got != lo&mask {
			t.Fatalf("mulMod(%d, %d) = %d, want %d", p[0], p[1], got, lo&mask)
		}
	}
}

// reference is EP straight from the definition: walk the stream from x_0
// and handle each pair as it comes. It returns one Result per batch, each
// summed locally in pair order as the kernel does.
func reference(batches int) []Result {
	out := make([]Result, batches)
	x := uint64(Seed)
	next := func() float64 {
		x = x * A % (1 << 46)
		return float64(x) / (1 << 46)
	}
	for kk := range out {
		r := &out[kk]
		for range BatchPairs {
			x1 := 2*next() - 1
			x2 := 2*next() - 1
			t := x1*x1 + x2*x2
			if t <= 1 {
				f := math.Sqrt(-2 * math.Log(t) / t)
				X, Y := x1*f, x2*f
				m := math.Abs(X)
				if math.Abs(Y) > m {
					m = math.Abs(Y)
				}
				r.Q[int(m)]++
				r.Sx += X
				r.Sy += Y
			}
		}
	}
	return out
}

// TestKernelMatchesDefinition checks the optimised kernel bit for bit
// against the direct definition, batch by batch and merged.
func TestKernelMatchesDefinition(t *testing.T) {
	const n = 6
	ref := reference(n)
	var sum Result
	for kk, want := range ref {
		if got := Batches(kk, kk+1); got != want {
			t.Errorf("batch %d: got %+v, want %+v", kk, got, want)
		}
		sum.Add(want)
	}
	if got := Batches(0, n); got != sum {
		t.Errorf("Batches(0, %d) = %+v, want %+v", n, got, sum)
	}
}

func TestClassS(t *testing.T) {
	c, err := ParseClass("S")
	if err != nil {
		t.Fatal(err)
	}
	r := Serial(c)
	if err := c.Verify(r); err != nil {
		t.Fatal(err)
	}
	want := [10]int64{6140517, 5865300, 1100361, 68546, 1648, 17, 0, 0, 0, 0}
	if r.Q != want {
		t.Fatalf("Q = %v, want %v", r.Q, want)
	}
	var gc int64
	for _, v := range want {
		gc += v
	}
	if r.Count() != gc {
		t.Fatalf("Count = %d, want %d", r.Count(), gc)
	}
	t.Logf("class S: sx=%.15e sy=%.15e gc=%d", r.Sx, r.Sy, r.Count())
}

func TestClassW(t *testing.T) {
	if testing.Short() {
		t.Skip("class W: 2^25 pairs")
	}
	c, _ := ParseClass("w")
	r := Serial(c)
	if err := c.Verify(r); err != nil {
		t.Fatal(err)
	}
	t.Logf("class W: sx=%.15e sy=%.15e gc=%d q=%v", r.Sx, r.Sy, r.Count(), r.Q)
}

// bisect merges Batches over a recursive bisection of [lo, hi), the way the
// task runtime splits the work, with leaves of at most leaf batches.
func bisect(lo, hi, leaf int) Result {
	if hi-lo <= leaf {
		return Batches(lo, hi)
	}
	mid := lo + (hi-lo)/2
	r := bisect(lo, mid, leaf)
	r.Add(bisect(mid, hi, leaf))
	return r
}

func TestSplitEqualsWhole(t *testing.T) {
	const lo, hi = 3, 40 // an odd range away from 0
	whole := Batches(lo, hi)
	same := func(name string, r Result) {
		t.Helper()
		if r.Q != whole.Q {
			t.Errorf("%s: Q = %v, whole gives %v", name, r.Q, whole.Q)
		}
		// The sums differ only by floating-point association.
		for _, p := range [][2]float64{{r.Sx, whole.Sx}, {r.Sy, whole.Sy}} {
			if math.Abs(p[0]-p[1]) > 1e-12*math.Abs(p[1]) {
				t.Errorf("%s: sum %.17g, whole gives %.17g", name, p[0], p[1])
			}
		}
	}
	for _, leaf := range []int{1, 2, 3, 7} {
		same(fmt.Sprint("bisect leaf ", leaf), bisect(lo, hi, leaf))
	}
	// Uneven pieces, merged out of order.
	r := Batches(17, 40)
	r.Add(Batches(lo, 4))
	r.Add(Batches(4, 17))
	same("uneven", r)
	// Empty ranges contribute nothing.
	if z := Batches(5, 5); z != (Result{}) {
		t.Errorf("Batches(5, 5) = %v, want zero", z)
	}
	if z := Batches(9, 2); z != (Result{}) {
		t.Errorf("Batches(9, 2) = %v, want zero", z)
	}
}

// TestSplitClassS checks that a bisected class S run still verifies with
// the exact counts.
func TestSplitClassS(t *testing.T) {
	c, _ := ParseClass("S")
	r := bisect(0, c.Batches(), 1)
	if err := c.Verify(r); err != nil {
		t.Fatal(err)
	}
	if s := Serial(c); r.Q != s.Q {
		t.Fatalf("Q = %v, serial gives %v", r.Q, s.Q)
	}
}

func TestParseClass(t *testing.T) {
	for _, c := range Classes() {
		for _, s := range []string{c.Name, strings.ToLower(c.Name)} {
			got, err := ParseClass(s)
			if err != nil || got != c {
				t.Errorf("ParseClass(%q) = %v, %v; want %v", s, got, err, c)
			}
		}
		if c.Batches() != 1<<(c.M-16) || int64(c.Batches())*BatchPairs != c.Pairs() {
			t.Errorf("class %s: Batches = %d, Pairs = %d", c.Name, c.Batches(), c.Pairs())
		}
	}
	for _, s := range []string{"", "D", "SS", "x", "1"} {
		_, err := ParseClass(s)
		if err == nil {
			t.Errorf("ParseClass(%q) succeeded", s)
			continue
		}
		for _, n := range []string{"S", "W", "A", "B", "C"} {
			if !strings.Contains(err.Error(), n) {
				t.Errorf("ParseClass(%q) error %q does not list %s", s, err, n)
			}
		}
	}
	want := []struct {
		name string
		m    int
	}{{"S", 24}, {"W", 25}, {"A", 28}, {"B", 30}, {"C", 32}}
	cs := Classes()
	if len(cs) != len(want) {
		t.Fatalf("Classes() has %d classes", len(cs))
	}
	for i, w := range want {
		if cs[i].Name != w.name || cs[i].M != w.m {
			t.Errorf("Classes()[%d] = %s/%d, want %s/%d", i, cs[i].Name, cs[i].M, w.name, w.m)
		}
	}
}

func TestVerifyRejects(t *testing.T) {
	c, _ := ParseClass("S")
	good := Result{Sx: c.Sx, Sy: c.Sy}
	if err := c.Verify(good); err != nil {
		t.Fatalf("reference sums rejected: %v", err)
	}
	// Within tolerance.
	ok := good
	ok.Sx *= 1 + 1e-10
	if err := c.Verify(ok); err != nil {
		t.Fatalf("sx off by 1e-10 rejected: %v", err)
	}
	for _, tc := range []struct {
		name     string
		r        Result
		bad, not string
	}{
		{"sx", Result{Sx: c.Sx * (1 + 1e-7), Sy: c.Sy}, "sx", "sy"},
		{"sy", Result{Sx: c.Sx, Sy: c.Sy + 1}, "sy", "sx"},
		{"both", Result{Sx: -c.Sx, Sy: 0}, "sy", ""},
		{"nan", Result{Sx: math.NaN(), Sy: c.Sy}, "sx", "sy"},
	} {
		err := c.Verify(tc.r)
		if err == nil {
			t.Errorf("%s: perturbed result verified", tc.name)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.bad+" =") || !strings.Contains(msg, "relative error") {
			t.Errorf("%s: error %q does not name %s and its error", tc.name, msg, tc.bad)
		}
		if tc.not != "" && strings.Contains(msg, tc.not+" =") {
			t.Errorf("%s: error %q names %s, which is fine", tc.name, msg, tc.not)
		}
	}
	// A wrong class is rejected too.
	w, _ := ParseClass("W")
	if err := w.Verify(good); err == nil {
		t.Error("class S sums verified as class W")
	}
}

func TestResultBinary(t *testing.T) {
	r := Batches(0, 1)
	if n := binary.Size(r); n != 2*8+10*8 {
		t.Fatalf("binary.Size(Result) = %d", n)
	}
	var buf bytes.Buffer
	if err := binary.Write(&buf, binary.LittleEndian, r); err != nil {
		t.Fatal(err)
	}
	var back Result
	if err := binary.Read(&buf, binary.LittleEndian, &back); err != nil {
		t.Fatal(err)
	}
	if back != r {
		t.Fatalf("round trip gave %v, want %v", back, r)
	}
}

func TestSerialNoAlloc(t *testing.T) {
	if n := testing.AllocsPerRun(2, func() { Batches(0, 2) }); n != 0 {
		t.Fatalf("Batches allocates %v times per run", n)
	}
}

// TestLargeClasses verifies the classes named in $EP_CLASSES (e.g.
// EP_CLASSES=ABC; too slow for the default run), spreading batch ranges
// over GOMAXPROCS goroutines.
func TestLargeClasses(t *testing.T) {
	names := os.Getenv("EP_CLASSES")
	if names == "" {
		t.Skip("set EP_CLASSES (e.g. ABC) to verify the large classes")
	}
	for _, name := range names {
		c, err := ParseClass(string(name))
		if err != nil {
			t.Fatal(err)
		}
		nb, w := c.Batches(), runtime.GOMAXPROCS(0)
		parts := make([]Result, w)
		var wg sync.WaitGroup
		for i := range parts {
			wg.Go(func() { parts[i] = Batches(i*nb/w, (i+1)*nb/w) })
		}
		wg.Wait()
		var r Result
		for _, p := range parts {
			r.Add(p)
		}
		if err := c.Verify(r); err != nil {
			t.Error(err)
		}
		t.Logf("class %s: sx=%.15e sy=%.15e gc=%d q=%v", c.Name, r.Sx, r.Sy, r.Count(), r.Q)
	}
}
