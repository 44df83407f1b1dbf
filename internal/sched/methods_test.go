package sched

import (
	"slices"
	"testing"

	"github.com/tsys-go/tsys/internal/methodcount"
)

// maxMethods is the most methods a type of this package may declare: what
// a reader can hold in their head at once. A type that outgrows it splits
// by concern, as Pool split by caller (doc.go, "The pool's sides") and
// Executor lost its frame tracking (track.go).
const maxMethods = 25

// TestTypesStaySmall: no type of the package declares more than
// maxMethods methods, and the pool's sides are types of their own.
func TestTypesStaySmall(t *testing.T) {
	ts, err := methodcount.Read(".")
	if err != nil {
		t.Fatal(err)
	}
	counts := func(typ string) int { return len(ts.Methods[typ]) }
	// Without these the bound would hold by not finding them: a parse
	// that lost a file, or a side folded back into another type.
	for _, typ := range []string{"Pool", "Port", "View", "crew", "Executor", "frameTrack", "Ctx", "Worker", "Deque"} {
		if counts(typ) == 0 {
			t.Errorf("type %s declares no method", typ)
		}
	}
	for _, e := range ts.Over(maxMethods) {
		t.Error(e)
	}
	// The cluster's calls and the readers' are not the owner's.
	pool := methodcount.Names(ts.Methods["Pool"])
	for _, m := range []string{"Lend", "Inject", "Complete", "Fail", "Load", "SetExpose", "Live", "StreamData"} {
		if slices.Contains(pool, m) {
			t.Errorf("Pool declares %s, a method of another side (Port or View)", m)
		}
	}
	t.Logf("methods: Pool %d, Port %d, View %d, crew %d, Executor %d, frameTrack %d, Ctx %d",
		counts("Pool"), counts("Port"), counts("View"), counts("crew"), counts("Executor"), counts("frameTrack"), counts("Ctx"))
}
