package tsys_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tsys-go/tsys/internal/runtimecore"
	"github.com/tsys-go/tsys/tsys"
)

// TestAddProgressSumsOverWorkers: units reported by tasks on every worker
// add up to the job's, the total is the largest named, and a new run
// starts from zero.
func TestAddProgressSumsOverWorkers(t *testing.T) {
	rt := tsys.New(tsys.Workers(4))
	const n = 10_000
	for run := range 2 {
		_, _, err := tsys.Do(context.Background(), rt, func(c *tsys.Ctx) struct{} {
			tsys.For(c, 0, n, func(c *tsys.Ctx, lo, hi int) {
				for range hi - lo {
					c.AddProgress(1, 0)
				}
				c.AddProgress(0, n)
			})
			return struct{}{}
		})
		if err != nil {
			t.Fatal(err)
		}
		got := (*runtimecore.Runtime)(rt).Main().View().Progress()
		if got.Done != n || got.Total != n {
			t.Errorf("run %d: progress %+v, want %d of %d", run, got, n, n)
		}
	}
}

// TestAddProgressNegativeFailsTheJob: a negative count fails the job with
// an error that says what was wrong, rather than counting backwards.
func TestAddProgressNegativeFailsTheJob(t *testing.T) {
	_, _, err := tsys.Do(context.Background(), tsys.New(tsys.Workers(1)), func(c *tsys.Ctx) int {
		c.AddProgress(-1, 10)
		return 0
	})
	var tp *tsys.TaskPanic
	if !errors.As(err, &tp) {
		t.Fatalf("err = %v, want a *tsys.TaskPanic", err)
	}
	if !strings.Contains(err.Error(), "AddProgress(-1, 10)") {
		t.Errorf("err = %v, want it to name the call", err)
	}
}
