package tsys_test

import (
	"context"
	"fmt"

	"github.com/tsys-go/tsys/tsys"
)

// A task reports the units of work it did, and the job's total when it
// knows it; tsys run's status line and the dashboard show the sum of all
// the tasks' units, on every node, as the job's progress bar.
func ExampleCtx_AddProgress() {
	rows := make([]int, 1000)
	for i := range rows {
		rows[i] = i
	}
	sum, _, err := tsys.Do(context.Background(), tsys.New(), func(c *tsys.Ctx) int {
		return tsys.Fold(c, 0, len(rows), func() int { return 0 },
			func(c *tsys.Ctx, lo, hi int, s int) int {
				for _, r := range rows[lo:hi] {
					s += r
				}
				c.AddProgress(int64(hi-lo), int64(len(rows))) // once per chunk
				return s
			}, func(a, b int) int { return a + b })
	})
	fmt.Println(sum, err)
	// Output: 499500 <nil>
}
