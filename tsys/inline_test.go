package tsys_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestAllowCCallInlinesIntoTaskCode guards the fast clone's cost: the
// question must compile into the task function, not stay a call. It stayed
// a call while Ctx was an alias of sched.Executor (golang/go#74783), and
// nothing but a benchmark would have shown it.
func TestAllowCCallInlinesIntoTaskCode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a package with the compiler's inlining report")
	}
	out, err := exec.Command("go", "build", "-gcflags=-m", "../apps/fib").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "inlining call to tsys.(*Ctx).AllowCCall") {
		t.Fatalf("Ctx.AllowCCall is not inlined into apps/fib; the compiler said:\n%s", out)
	}
}
