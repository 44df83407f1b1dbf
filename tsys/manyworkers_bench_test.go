//go:build unix

package tsys_test

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/tsys-go/tsys/apps/fib"
	"github.com/tsys-go/tsys/tsys"
)

// BenchmarkManyWorkers runs one small job (fib 25) on pools of W workers,
// past the command line's bound (cli/workers.go) too, which only the
// library reaches. Its ns/op divided by W must not grow with W: a job's
// cost grows at most linearly in the workers (bench/README.md "Many
// workers"), because at most a few idle workers search at once
// (internal/sched/idle.go). cpu-ns/op is the process's CPU time a job,
// which other work on a shared machine does not inflate as it does the
// wall time.
func BenchmarkManyWorkers(b *testing.B) {
	for _, w := range []int{2, 64, 256, 512, 2000, 8000} {
		b.Run(fmt.Sprintf("W=%d", w), func(b *testing.B) {
			rt := tsys.New(tsys.Workers(w))
			cpu0 := processCPU()
			for b.Loop() {
				v, _, err := tsys.Run(context.Background(), rt, fib.Task, 25)
				if err != nil || v != fib.Exact(25) {
					b.Fatal(v, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(w), "ns/op/worker")
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// processCPU is the process's user and system time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
