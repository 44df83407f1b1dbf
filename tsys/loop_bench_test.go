package tsys_test

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tsys-go/tsys/internal/cputime"
	"github.com/tsys-go/tsys/tsys"
)

// The loop benchmarks run every form of a loop, and the same loop split
// by hand over goroutines, one after another in each iteration, and
// report medians of the per-iteration ratios: the machine's noise then
// falls on both sides of a ratio alike. bench/loops.sh runs them and
// writes bench/README.md's "Loops".

// timed is one run of one form: its wall and process CPU time.
type timed struct{ wall, cpu time.Duration }

func measure(f func()) timed {
	c0, _ := cputime.Process()
	t0 := time.Now()
	f()
	wall := time.Since(t0)
	c1, _ := cputime.Process()
	return timed{wall, c1 - c0}
}

// rounds runs every form once per benchmark iteration, in turn, each
// round beginning one form later than the last, so that no form is always
// the one that runs first (after the garbage collector's last cycle, say).
func rounds(b *testing.B, forms []string, run func(form string)) map[string][]timed {
	got := map[string][]timed{}
	for r := 0; b.Loop(); r++ {
		for i := range forms {
			f := forms[(r+i)%len(forms)]
			got[f] = append(got[f], measure(func() { run(f) }))
		}
	}
	return got
}

// reportRatio reports the median over iterations of num/den, CPU or wall.
func reportRatio(b *testing.B, got map[string][]timed, num, den, unit string, cpu bool) {
	var r []float64
	for i := range got[num] {
		n, d := got[num][i].wall, got[den][i].wall
		if cpu {
			n, d = got[num][i].cpu, got[den][i].cpu
		}
		r = append(r, float64(n)/float64(d))
	}
	b.ReportMetric(median(r), unit)
}

// handSplit runs body over [0, n) split by hand into one piece per
// worker, each on its own goroutine: what a Go programmer writes without
// a runtime.
func handSplit(workers, n int, body func(lo, hi int)) {
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body(n*w/workers, n*(w+1)/workers)
		}()
	}
	wg.Wait()
}

// The 50 M reduction of issue 25: sqrt(x) sin(x) summed over a slice.
const sumN = 50_000_000

var sumXs = sync.OnceValue(func() []float64 {
	xs := make([]float64, sumN)
	for i := range xs {
		xs[i] = float64(i) * 1e-3
	}
	return xs
})

func sumTerms(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += math.Sqrt(x) * math.Sin(x)
	}
	return s
}

// sumIn is sumXs(), set before the registered loop runs.
var sumIn []float64

var benchSum = tsys.RegisterFold("bench.sum", func() float64 { return 0 }, func(_ *tsys.Ctx, _ struct{}, lo, hi int, s float64) float64 {
	return s + sumTerms(sumIn[lo:hi])
}, func(a, b float64) float64 { return a + b })

// BenchmarkLoopSum: the forms of the 50 M reduction on 1 and 2 workers.
// Metrics: CPU time against the serial loop (cpu/serial), against the
// hand-split goroutines (cpu/hand, wall/hand), and 1 worker's wall time
// against 2's (speedup).
func BenchmarkLoopSum(b *testing.B) {
	xs := sumXs()
	sumIn = xs
	want := sumTerms(xs)
	rts := map[string]*tsys.Runtime{"1": tsys.New(tsys.Workers(1)), "2": tsys.New(tsys.Workers(2))}
	check := func(form string, v float64, err error) {
		if err != nil || math.Abs(v-want) > 1e-9*math.Abs(want)+1e-3 {
			b.Fatalf("%s: %v, %v; want %v", form, v, err, want)
		}
	}
	forms := []string{"serial", "hand/1", "hand/2", "range/1", "range/2", "fold/1", "fold/2", "grain/1", "grain/2"}
	got := rounds(b, forms, func(form string) {
		kind, w, _ := cut(form)
		ctx := context.Background()
		switch kind {
		case "serial":
			check(form, sumTerms(xs), nil)
		case "hand":
			parts := make([]float64, 2)
			n := map[string]int{"1": 1, "2": 2}[w]
			handSplit(n, len(xs), func(lo, hi int) { parts[lo*n/len(xs)] = sumTerms(xs[lo:hi]) })
			check(form, parts[0]+parts[1], nil)
		case "range":
			v, _, err := tsys.Do(ctx, rts[w], func(c *tsys.Ctx) float64 { return benchSum.Call(c, struct{}{}, 0, len(xs)) })
			check(form, v, err)
		case "grain":
			v, _, err := tsys.Do(ctx, rts[w], func(c *tsys.Ctx) float64 { return benchSum.Call(c, struct{}{}, 0, len(xs), tsys.Grain(4096)) })
			check(form, v, err)
		case "fold":
			v, _, err := tsys.Do(ctx, rts[w], func(c *tsys.Ctx) float64 {
				return tsys.Fold(c, 0, len(xs), func() float64 { return 0 }, func(_ *tsys.Ctx, lo, hi int, s float64) float64 { return s + sumTerms(xs[lo:hi]) },
					func(a, b float64) float64 { return a + b })
			})
			check(form, v, err)
		}
	})
	for _, f := range forms[1:] {
		reportRatio(b, got, f, "serial", f+"-cpu/serial", true)
	}
	reportRatio(b, got, "hand/1", "hand/2", "hand-speedup", false)
	for _, f := range []string{"range", "fold", "grain"} {
		for _, w := range []string{"1", "2"} {
			reportRatio(b, got, f+"/"+w, "hand/"+w, f+"/"+w+"-cpu/hand", true)
			reportRatio(b, got, f+"/"+w, "hand/"+w, f+"/"+w+"-wall/hand", false)
		}
		reportRatio(b, got, f+"/1", f+"/2", f+"-speedup", false)
	}
}

func cut(form string) (kind, workers string, ok bool) {
	for i := range form {
		if form[i] == '/' {
			return form[:i], form[i+1:], true
		}
	}
	return form, "", false
}

// BenchmarkLoopMap: a 20 M element map into a new slice, tsys.For
// against the hand-split goroutines, on 1 and 2 workers.
func BenchmarkLoopMap(b *testing.B) {
	in := sumXs()[:20_000_000]
	rts := map[string]*tsys.Runtime{"1": tsys.New(tsys.Workers(1)), "2": tsys.New(tsys.Workers(2))}
	double := func(out, in []float64) {
		for i, x := range in {
			out[i] = 2*x + 1
		}
	}
	forms := []string{"hand/1", "map/1", "hand/2", "map/2"}
	got := rounds(b, forms, func(form string) {
		kind, w, _ := cut(form)
		var out []float64
		if kind == "hand" {
			out = make([]float64, len(in))
			handSplit(map[string]int{"1": 1, "2": 2}[w], len(in), func(lo, hi int) { double(out[lo:hi], in[lo:hi]) })
		} else {
			var err error
			out, _, err = tsys.Do(context.Background(), rts[w], func(c *tsys.Ctx) []float64 {
				out := make([]float64, len(in))
				tsys.For(c, 0, len(in), func(_ *tsys.Ctx, lo, hi int) { double(out[lo:hi], in[lo:hi]) })
				return out
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		if out[len(out)-1] != 2*in[len(in)-1]+1 || out[12345] != 2*in[12345]+1 {
			b.Fatalf("%s: wrong map", form)
		}
	})
	for _, w := range []string{"1", "2"} {
		reportRatio(b, got, "map/"+w, "hand/"+w, "map/"+w+"-wall/hand", false)
		reportRatio(b, got, "map/"+w, "hand/"+w, "map/"+w+"-cpu/hand", true)
	}
}

// BenchmarkLoopStore: for-each with the cheapest body, a store per
// element, over 20 M ints.
func BenchmarkLoopStore(b *testing.B) {
	s := make([]int, 20_000_000)
	rts := map[string]*tsys.Runtime{"1": tsys.New(tsys.Workers(1)), "2": tsys.New(tsys.Workers(2))}
	store := func(at int, part []int) {
		for i := range part {
			part[i] = at + i
		}
	}
	forms := []string{"hand/1", "for/1", "hand/2", "for/2"}
	got := rounds(b, forms, func(form string) {
		clear(s)
		kind, w, _ := cut(form)
		if kind == "hand" {
			handSplit(map[string]int{"1": 1, "2": 2}[w], len(s), func(lo, hi int) { store(lo, s[lo:hi]) })
		} else if _, _, err := tsys.Do(context.Background(), rts[w], func(c *tsys.Ctx) int {
			tsys.For(c, 0, len(s), func(_ *tsys.Ctx, lo, hi int) { store(lo, s[lo:hi]) })
			return 0
		}); err != nil {
			b.Fatal(err)
		}
		if s[len(s)-1] != len(s)-1 || s[777] != 777 {
			b.Fatalf("%s: wrong stores", form)
		}
	})
	for _, w := range []string{"1", "2"} {
		reportRatio(b, got, "for/"+w, "hand/"+w, "for/"+w+"-wall/hand", false)
		reportRatio(b, got, "for/"+w, "hand/"+w, "for/"+w+"-cpu/hand", true)
	}
}

// unevenCosts are the iterations' costs of the uneven loop, in units of
// spin: Pareto-distributed (shape 1.2, so a few iterations cost hundreds
// of times the median), and, as in a rendered image, costlier in a band
// of the range.
var unevenCosts = sync.OnceValue(func() []int32 {
	r := rand.New(rand.NewPCG(25, 1))
	c := make([]int32, 200_000)
	for i := range c {
		x := 1 / math.Pow(1-r.Float64(), 1/1.2) // Pareto, x >= 1
		if i > len(c)/2 && i < len(c)*5/8 {
			x *= 8
		}
		c[i] = int32(min(x*20, 40_000))
	}
	return c
})

//go:noinline
func spin(n int32) uint64 {
	x := uint64(n)
	for range n {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

func unevenBody(_ *tsys.Ctx, _ struct{}, lo, hi int, x uint64) uint64 {
	for _, n := range unevenCosts()[lo:hi] {
		x += spin(n)
	}
	return x
}

var benchUneven = tsys.RegisterFold("bench.uneven", func() uint64 { return 0 }, unevenBody, func(a, b uint64) uint64 { return a + b })

// unevenGrains are the grains the sweep tries.
var unevenGrains = []int{1, 4, 16, 64, 256, 1024}

// BenchmarkLoopUneven: a loop of uneven iterations on 2 workers, split
// adaptively by halving (default) and by factoring, against fixed grains.
// Metrics: wall time against the default's (grain-G/default), and the
// factoring's (factoring/default).
func BenchmarkLoopUneven(b *testing.B) {
	var want uint64
	for _, n := range unevenCosts() {
		want += spin(n)
	}
	rt := tsys.New(tsys.Workers(2))
	forms := []string{"default", "factoring"}
	for _, g := range unevenGrains {
		forms = append(forms, "grain-"+strconv.Itoa(g))
	}
	got := rounds(b, forms, func(form string) {
		var opts []tsys.LoopOption
		switch {
		case form == "factoring":
			opts = append(opts, tsys.Factoring)
		case form != "default":
			opts = append(opts, tsys.Grain(must(strconv.Atoi(form[len("grain-"):]))))
		}
		v, _, err := tsys.Do(context.Background(), rt, func(c *tsys.Ctx) uint64 { return benchUneven.Call(c, struct{}{}, 0, len(unevenCosts()), opts...) })
		if err != nil || v != want {
			b.Fatalf("%s: %v, %v", form, v, err)
		}
	})
	best := math.Inf(1)
	for _, f := range forms[2:] {
		reportRatio(b, got, f, "default", f+"/default", false)
		var w []float64
		for _, t := range got[f] {
			w = append(w, t.wall.Seconds())
		}
		best = min(best, median(w))
	}
	reportRatio(b, got, "factoring", "default", "factoring/default", false)
	var d []float64
	for _, t := range got["default"] {
		d = append(d, t.wall.Seconds())
	}
	b.ReportMetric(median(d)/best, "default/best-grain")
}

func must(n int, err error) int {
	if err != nil {
		panic(err)
	}
	return n
}

// BenchmarkLoopChunkTarget: the 50 M reduction and the uneven loop on 2
// workers with chunks of other lengths than the default's, in wall time
// against the default (metrics sum-T/default, uneven-T/default).
func BenchmarkLoopChunkTarget(b *testing.B) {
	xs := sumXs()
	sumIn = xs
	unevenCosts() // made before the first round, not in it
	rt := tsys.New(tsys.Workers(2))
	targets := []time.Duration{5 * time.Microsecond, 20 * time.Microsecond, 80 * time.Microsecond, 320 * time.Microsecond}
	def := tsys.SetChunkTarget(0)
	tsys.SetChunkTarget(def)
	var forms []string
	for _, d := range targets {
		forms = append(forms, "sum-"+d.String(), "uneven-"+d.String())
	}
	got := rounds(b, forms, func(form string) {
		kind, d, _ := strings.Cut(form, "-")
		target, err := time.ParseDuration(d)
		if err != nil {
			b.Fatal(err)
		}
		defer tsys.SetChunkTarget(tsys.SetChunkTarget(target))
		if kind == "sum" {
			_, _, err = tsys.Do(context.Background(), rt, func(c *tsys.Ctx) float64 { return benchSum.Call(c, struct{}{}, 0, len(xs)) })
		} else {
			_, _, err = tsys.Do(context.Background(), rt, func(c *tsys.Ctx) uint64 { return benchUneven.Call(c, struct{}{}, 0, len(unevenCosts())) })
		}
		if err != nil {
			b.Fatal(err)
		}
	})
	for _, d := range targets {
		for _, kind := range []string{"sum", "uneven"} {
			reportRatio(b, got, kind+"-"+d.String(), kind+"-"+def.String(), kind+"-"+d.String()+"/default", false)
		}
	}
}

// BenchmarkLoopSmall: what a loop costs to begin and end, beside its
// iterations: Reduce over a few cheap iterations, inside a task, against
// the plain loop (metric ns/loop: the difference per loop).
func BenchmarkLoopSmall(b *testing.B) {
	for _, n := range []int{16, 256, 4096} {
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			xs := sumXs()[:n]
			const loops = 10_000
			rt := tsys.New(tsys.Workers(1))
			var plain, viaLoop []float64
			for b.Loop() {
				t0 := time.Now()
				s := 0.0
				for range loops {
					s += sumTerms(xs)
				}
				t1 := time.Now()
				v, _, err := tsys.Do(context.Background(), rt, func(c *tsys.Ctx) float64 {
					s := 0.0
					for range loops {
						s += tsys.Fold(c, 0, n, func() float64 { return 0 }, func(_ *tsys.Ctx, lo, hi int, s float64) float64 { return s + sumTerms(xs[lo:hi]) },
							func(a, b float64) float64 { return a + b })
					}
					return s
				})
				t2 := time.Now()
				if err != nil || math.Abs(v-s) > 1e-9*math.Abs(s) {
					b.Fatal(v, s, err)
				}
				plain = append(plain, float64(t1.Sub(t0).Nanoseconds())/loops)
				viaLoop = append(viaLoop, float64(t2.Sub(t1).Nanoseconds())/loops)
			}
			b.ReportMetric(median(viaLoop)-median(plain), "ns/loop")
			b.ReportMetric(median(viaLoop)/median(plain), "loop/plain")
		})
	}
}
