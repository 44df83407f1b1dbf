package tsys_test

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestAllowCCallInlinesIntoTaskCode guards the fast clone's cost: the
// question must compile into the task function, not stay a call. Making
// Ctx an alias of sched.Executor keeps it a call (golang/go#74783), which
// nothing but a benchmark would show.
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

// TestForkInlinesIntoTaskCode guards natural code's cost: Fork's fast path
// (a decrement, one call, one load) must fit Go's inlining budget, and so
// must Join's, or the README's first example pays a call more per fork
// (bench/README.md, "Natural code"); so must Call's. A field more in
// Forked, or a statement more in Fork, is enough to lose it.
func TestForkInlinesIntoTaskCode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a package with the compiler's inlining report")
	}
	out, err := exec.Command("go", "build", "-gcflags=-m", "../apps/fib").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`fib\.go:\d+:\d+: inlining call to tsys\.\(\*Task\[[^]]*\]\)\.Fork\b`),
		regexp.MustCompile(`fib\.go:\d+:\d+: inlining call to tsys\.Forked\[[^]]*\]\.Join\b`),
		// Call's check of the ending flag must not cost its inlining
		// either: UTS calls a task per node.
		regexp.MustCompile(`fib\.go:\d+:\d+: inlining call to tsys\.\(\*Task\[[^]]*\]\)\.Call\b`),
	} {
		if !want.Match(out) {
			t.Errorf("apps/fib: no %q in the compiler's inlining report:\n%s", want, out)
		}
	}
}
