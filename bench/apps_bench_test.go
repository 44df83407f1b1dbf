package bench

import (
	"context"
	"fmt"
	"testing"

	"github.com/tsys-go/tsys/apps"
	"github.com/tsys-go/tsys/inline"
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
	return a.Inline()
}

func runJob(b *testing.B, j apps.Job, rt *tsys.Runtime) {
	for b.Loop() {
		res, _, err := j.Run(context.Background(), rt)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := j.Verify(res); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApps: serial, 1 worker and 2 workers, each app's default inlining.
func BenchmarkApps(b *testing.B) {
	for _, c := range configs {
		j := makeJob(b, c)
		b.Run(c.name+"/serial", func(b *testing.B) {
			for b.Loop() {
				res, err := j.Serial()
				if err != nil {
					b.Fatal(err)
				}
				if _, err := j.Verify(res); err != nil {
					b.Fatal(err)
				}
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
