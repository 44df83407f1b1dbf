package calibrate

import (
	"runtime"
	"testing"
	"time"
)

// checkNoLeak fails the test if goroutines it started outlive it, as
// tsys's own tests check: a calibration must leave nothing running. The
// wait is long, as goroutines end only when the machine runs them.
func checkNoLeak(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(10 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			buf := make([]byte, 1<<16)
			t.Errorf("%d goroutines leaked:\n%s", n-before, buf[:runtime.Stack(buf, true)])
		}
	})
}
