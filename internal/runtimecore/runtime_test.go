package runtimecore

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/tsys-go/tsys/inline"
)

// TestNewCompletesTheConfig: a runtime made of a partial Config gets its
// defaults, once, for every pool it makes: GOMAXPROCS workers for 0, no
// inlining while it measures work and span, and the check of copies the
// environment asks for.
func TestNewCompletesTheConfig(t *testing.T) {
	t.Setenv(CheckCopiesEnv, "")
	rt := New(Config{Inline: inline.LoadK(3)})
	if got, want := rt.Workers(), runtime.GOMAXPROCS(0); got != want || rt.Main().Workers() != want {
		t.Errorf("Workers 0: %d workers (main pool %d), want GOMAXPROCS %d", got, rt.Main().Workers(), want)
	}
	if got := rt.Inline().String(); got != "load:3" {
		t.Errorf("Inline load:3 is %s", got)
	}
	if rt.conf.CheckCopies {
		t.Errorf("copies checked with %s empty", CheckCopiesEnv)
	}
	if !rt.Made() || rt.Last() != rt.Main() {
		t.Errorf("a new runtime: made %v, last pool the main one %v; want both", rt.Made(), rt.Last() == rt.Main())
	}
	if m := New(Config{Workers: 2, Inline: inline.Default(), WorkSpan: true}).Inline().Mode(); m != inline.Off {
		t.Errorf("WorkSpan: inlining %v, want off, so that every spawn is measured as a task", m)
	}
	t.Setenv(CheckCopiesEnv, "1")
	if !New(Config{Workers: 1}).conf.CheckCopies {
		t.Errorf("%s=1: copies not checked", CheckCopiesEnv)
	}
	if new(Runtime).Made() {
		t.Error("the zero Runtime says it was made by New")
	}
}

// pastDeadline is a context whose deadline has passed and whose Err does
// not say so yet, as between a deadline and its timer.
type pastDeadline struct{ context.Context }

func (pastDeadline) Deadline() (time.Time, bool) { return time.Now().Add(-time.Millisecond), true }

// TestContextEnded: a context has ended when it says so or when its
// deadline has passed, whether or not its timer has fired.
func TestContextEnded(t *testing.T) {
	if ContextEnded(context.Background()) {
		t.Error("Background has ended")
	}
	if !ContextEnded(pastDeadline{context.Background()}) {
		t.Error("a context past its deadline whose timer has not fired has not ended")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if !ContextEnded(ctx) {
		t.Error("a cancelled context has not ended")
	}
}
