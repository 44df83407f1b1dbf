// Command histogram summarises a large slice of samples in memory with
// tsys's closure loops: their least, greatest and sum in one pass (Fold),
// the samples scaled to [0, 1] (For) and a histogram of them (Fold, each
// piece counting into a slice of its own):
//
//	go run ./examples/histogram run histogram -n 50000000 --bins 20
//
// The closures capture the samples in this process's memory, so the work
// stays on the node that runs the job: a closure cannot be sent to
// another. A loop whose work should spread over a cluster is registered
// instead (tsys.RegisterFold, as examples/reduce does).
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/tsys-go/tsys/cli"
	"github.com/tsys-go/tsys/tsys"
)

func main() { cli.Main(config) }

var config = cli.Config{Name: "histogram", Programs: []cli.Program{{
	Name:    "histogram",
	Summary: "min, max, mean and a histogram of N random samples (-n N --bins B --seed S)",
	Options: func() cli.Options { return new(job) },
}}}

// job summarises n samples in bins; it is also a cli.SerialJob and a
// cli.Verifier.
type job struct {
	n, bins int
	seed    uint64
}

// Flags binds the job's fields to the program's flags: a job is its
// own options.
func (j *job) Flags(fs *flag.FlagSet) {
	fs.IntVar(&j.n, "n", 10_000_000, "how many samples")
	fs.IntVar(&j.bins, "bins", 10, "how many bins the histogram has")
	fs.Uint64Var(&j.seed, "seed", 1, "seed of the samples")
}

// Job checks the parsed options: the job is then what runs.
func (j *job) Job() (cli.Job, error) {
	if j.n < 0 || j.bins < 1 {
		return nil, fmt.Errorf("-n %d, --bins %d: want n >= 0 and bins >= 1", j.n, j.bins)
	}
	return *j, nil
}

// samples are log-normal: skewed, as latencies and file sizes are.
func (j job) samples() []float64 {
	r := rand.New(rand.NewPCG(j.seed, 0))
	xs := make([]float64, j.n)
	for i := range xs {
		xs[i] = math.Exp(r.NormFloat64())
	}
	return xs
}

func (j job) Params() map[string]any { return map[string]any{"n": j.n, "bins": j.bins, "seed": j.seed} }

// summary is the job's answer.
type summary struct {
	min, max, mean float64
	counts         []int
}

func (j job) Run(ctx context.Context, rt *tsys.Runtime) (cli.Result, tsys.Stats, error) {
	xs := j.samples()
	s, st, err := tsys.Do(ctx, rt, func(c *tsys.Ctx) summary { return summarise(c, xs, j.bins) })
	return result(s), st, err
}

// summarise is the parallel summary: each step a loop over the samples.
func summarise(c *tsys.Ctx, xs []float64, bins int) summary {
	if len(xs) == 0 {
		return summary{counts: make([]int, bins)}
	}
	m := tsys.Fold(c, 0, len(xs), func() moments { return moments{lo: math.Inf(1), hi: math.Inf(-1)} },
		func(_ *tsys.Ctx, a, b int, m moments) moments {
			for _, x := range xs[a:b] {
				m = moments{min(m.lo, x), max(m.hi, x), m.sum + x}
			}
			return m
		},
		func(a, b moments) moments { return moments{min(a.lo, b.lo), max(a.hi, b.hi), a.sum + b.sum} })
	lo, hi, mean := m.lo, m.hi, m.sum/float64(len(xs))
	scaled := make([]float64, len(xs))
	tsys.For(c, 0, len(xs), func(_ *tsys.Ctx, a, b int) {
		for i := a; i < b; i++ {
			scaled[i] = scale(xs[i], lo, hi)
		}
	})
	// A piece counts into a histogram of its own, made once per piece.
	counts := tsys.Fold(c, 0, len(scaled), func() []int { return make([]int, bins) }, func(_ *tsys.Ctx, a, b int, counts []int) []int {
		for _, x := range scaled[a:b] {
			counts[bin(x, bins)]++
		}
		return counts
	}, func(a, b []int) []int {
		for i := range a {
			a[i] += b[i]
		}
		return a
	})
	return summary{lo, hi, mean, counts}
}

// moments are what one pass over the samples finds: the least, the
// greatest and the sum.
type moments struct{ lo, hi, sum float64 }

// scale maps [lo, hi] onto [0, 1].
func scale(x, lo, hi float64) float64 {
	if hi == lo {
		return 0
	}
	return (x - lo) / (hi - lo)
}

// bin is the bin of a scaled sample; 1 falls in the last.
func bin(x float64, bins int) int { return min(int(x*float64(bins)), bins-1) }

// Serial is the same summary with plain loops.
func (j job) Serial() (cli.Result, error) {
	xs := j.samples()
	if len(xs) == 0 {
		return result(summary{counts: make([]int, j.bins)}), nil
	}
	s := summary{min: slices.Min(xs), max: slices.Max(xs), counts: make([]int, j.bins)}
	total := 0.0
	for _, x := range xs {
		total += x
		s.counts[bin(scale(x, s.min, s.max), j.bins)]++
	}
	s.mean = total / float64(len(xs))
	return result(s), nil
}

// Verify compares with the serial summary: the counts, least and greatest
// exactly; the mean to 1e-9 of itself, since the parallel sum adds in
// another order.
func (j job) Verify(r cli.Result) (bool, error) {
	want, _ := j.Serial()
	got, w := r.Value.(map[string]any), want.Value.(map[string]any)
	for _, k := range []string{"min", "max", "counts"} {
		if fmt.Sprint(got[k]) != fmt.Sprint(w[k]) {
			return true, fmt.Errorf("%s is %v, the serial loop's %v", k, got[k], w[k])
		}
	}
	if m, wm := got["mean"].(float64), w["mean"].(float64); math.Abs(m-wm) > 1e-9*math.Abs(wm) {
		return true, fmt.Errorf("mean is %v, the serial loop's %v", m, wm)
	}
	return true, nil
}

func result(s summary) cli.Result {
	var b strings.Builder
	fmt.Fprintf(&b, "min %.4g, max %.4g, mean %.4g; counts", s.min, s.max, s.mean)
	for _, n := range s.counts {
		fmt.Fprintf(&b, " %d", n)
	}
	return cli.Result{
		Value: map[string]any{"min": s.min, "max": s.max, "mean": s.mean, "counts": s.counts},
		Text:  b.String(),
	}
}
