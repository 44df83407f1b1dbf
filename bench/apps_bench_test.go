package bench

import (
	"context"
	"fmt"
	"github.com/tsys-go/tsys/internal/median"
	"testing"
	"time"

	"github.com/tsys-go/tsys/apps"
	"github.com/tsys-go/tsys/apps/fib"
	"github.com/tsys-go/tsys/apps/nqueens"
	"github.com/tsys-go/tsys/apps/uts"
	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/internal/cliflags"
	"github.com/tsys-go/tsys/tsys"
)

type config struct {
	name string
	app  string
	args []string
}

// configs are the jobs the issues set targets for.
var configs = []config{
	{"fib35", "fib", []string{"-n", "35"}},
	{"nqueens14", "nqueens", []string{"-n", "14"}},
	{"utsT1", "uts", []string{"--tree", "T1"}},
	{"utsT3", "uts", []string{"--tree", "T3"}},
	{"epW", "ep", []string{"--class", "W"}},
	{"rtBalls", "rt", []string{"--scene", "balls", "--verify=false"}},
}

func makeJob(b *testing.B, c config) apps.Job {
	j, err := apps.ParseJob(c.app, c.args...)
	if err != nil {
		b.Fatal(err)
	}
	return j
}

// appInline is the inlining policy a run of the app gets by default.
func appInline(b *testing.B, c config) inline.Policy {
	a, err := apps.Lookup(c.app)
	if err != nil {
		b.Fatal(err)
	}
	return cliflags.DefaultInline(a.InlineK)
}

func runJob(b *testing.B, j apps.Job, rt *tsys.Runtime) {
	for b.Loop() {
		runOn(b, j, rt)
	}
}

// BenchmarkApps: serial, 1 worker and 2 workers, each app's default inlining.
func BenchmarkApps(b *testing.B) {
	for _, c := range configs {
		j := makeJob(b, c)
		b.Run(c.name+"/serial", func(b *testing.B) {
			for b.Loop() {
				runSerial(b, j)
			}
		})
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/w%d", c.name, w), func(b *testing.B) {
				runJob(b, j, tsys.New(tsys.Workers(w), tsys.Inline(appInline(b, c))))
			})
		}
	}
}

// BenchmarkInlineK sweeps the Load threshold on 2 workers.
func BenchmarkInlineK(b *testing.B) {
	for _, c := range configs[:4] {
		j := makeJob(b, c)
		for _, k := range []int{1, 2, 4, 8, 16} {
			b.Run(fmt.Sprintf("%s/k%d", c.name, k), func(b *testing.B) {
				runJob(b, j, tsys.New(tsys.Workers(2), tsys.Inline(inline.LoadK(k))))
			})
		}
	}
}

// BenchmarkRatios measures the issues' ratios the way this shared 2-core
// machine allows: each iteration times the serial version, 1 worker and 2
// workers back to back, in rotating order, and the metrics are the medians
// of the per-iteration ratios. A burst of load from elsewhere then hits the
// two sides of a ratio alike, which separate sub-benchmarks cannot promise.
// Run it with a fixed count of iterations, e.g. -benchtime 15x.
func BenchmarkRatios(b *testing.B) {
	for _, c := range configs {
		j := makeJob(b, c)
		b.Run(c.name, func(b *testing.B) {
			w1 := tsys.New(tsys.Workers(1), tsys.Inline(appInline(b, c)))
			w2 := tsys.New(tsys.Workers(2), tsys.Inline(appInline(b, c)))
			reportRatios(b, func() { runSerial(b, j) }, func() { runOn(b, j, w1) }, func() { runOn(b, j, w2) })
		})
	}
}

// reportRatios times serial, w1 and w2 back to back in each iteration, in
// rotating order, and reports the medians of the per-iteration ratios
// w1/serial and w1/w2.
func reportRatios(b *testing.B, serial, w1, w2 func()) {
	runs := []func(){serial, w1, w2}
	var w1Serial, w1W2 []float64
	for i := 0; b.Loop(); i++ {
		var took [3]float64
		for k := range runs {
			r := (i + k) % len(runs)
			start := time.Now()
			runs[r]()
			took[r] = time.Since(start).Seconds()
		}
		w1Serial = append(w1Serial, took[1]/took[0])
		w1W2 = append(w1W2, took[1]/took[2])
	}
	b.ReportMetric(median.Of(w1Serial), "w1/serial")
	b.ReportMetric(median.Of(w1W2), "w1/w2")
}

func runSerial(b *testing.B, j apps.Job) {
	res, err := j.Serial()
	if err != nil {
		b.Fatal(err)
	}
	if _, err := j.Verify(res); err != nil {
		b.Fatal(err)
	}
}

func runOn(b *testing.B, j apps.Job, rt *tsys.Runtime) {
	res, _, err := j.Run(context.Background(), rt)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := j.Verify(res); err != nil {
		b.Fatal(err)
	}
}

// natural is a job written the natural way (Fork and Join, or Spawn and
// Get), run through the fast clone go generate writes or as it is, with
// its serial version and the answer both must give.
type natural struct {
	name   string
	serial func() int64
	run    func(rt *tsys.Runtime) (int64, error)
	want   int64
	// inline is the policy the runs get: the app's default.
	inline inline.Policy
}

func naturalJob[A any](name string, task *tsys.Task[A, int64], arg A, serial func() int64, want int64) natural {
	return natural{name: name, serial: serial, want: want, inline: inline.Default(), run: func(rt *tsys.Runtime) (int64, error) {
		v, _, err := tsys.Run(context.Background(), rt, task, arg)
		return v, err
	}}
}

var naturals = []natural{
	naturalJob("fib35/clone", fib.Task, 35, func() int64 { return fib.Serial(35) }, fib.Exact(35)),
	naturalJob("fib35/fork", fib.Forking, 35, func() int64 { return fib.Serial(35) }, fib.Exact(35)),
	naturalJob("fib35/spawn", fib.Plain, 35, func() int64 { return fib.Serial(35) }, fib.Exact(35)),
	naturalJob("nqueens14/clone", nqueens.Task, nqueens.Start(14), func() int64 { return nqueens.Serial(nqueens.Start(14)) }, nqueens.Known[14]),
	naturalJob("nqueens14/fork", nqueens.Forking, nqueens.Start(14), func() int64 { return nqueens.Serial(nqueens.Start(14)) }, nqueens.Known[14]),
	naturalJob("nqueens14/spawn", nqueens.Spawning, nqueens.Start(14), func() int64 { return nqueens.Serial(nqueens.Start(14)) }, nqueens.Known[14]),
	utsNatural("utsT1/clone", uts.Task),
	utsNatural("utsT1/fork", uts.Forking),
}

// utsNatural is a natural job of UTS T1, whose answer is its node count.
func utsNatural(name string, task *tsys.Task[uts.Work, uts.Counts]) natural {
	t1, err := uts.Named("T1")
	if err != nil {
		panic(err)
	}
	app, err := apps.Lookup("uts")
	if err != nil {
		panic(err)
	}
	p := t1.Params
	return natural{name: name, want: t1.Nodes, inline: cliflags.DefaultInline(app.InlineK),
		serial: func() int64 { return uts.Serial(p).Nodes },
		run: func(rt *tsys.Runtime) (int64, error) {
			c, _, err := tsys.Run(context.Background(), rt, task, uts.RootWork(p))
			return c.Nodes, err
		}}
}

// BenchmarkNatural is BenchmarkRatios for the ways to write a job: the
// fast clone, natural Fork and Join, natural Spawn and Get, each at the
// default inlining, against the serial version on 1 worker and 2 workers
// against 1, timed back to back in rotating order.
func BenchmarkNatural(b *testing.B) {
	for _, j := range naturals {
		b.Run(j.name, func(b *testing.B) {
			w1 := tsys.New(tsys.Workers(1), tsys.Inline(j.inline))
			w2 := tsys.New(tsys.Workers(2), tsys.Inline(j.inline))
			check := func(v int64, err error) {
				if err != nil || v != j.want {
					b.Fatalf("%s = %d, %v; want %d", j.name, v, err, j.want)
				}
			}
			reportRatios(b, func() { check(j.serial(), nil) }, func() { check(j.run(w1)) }, func() { check(j.run(w2)) })
		})
	}
}
