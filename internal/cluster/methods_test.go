package cluster

import (
	"testing"

	"github.com/tsys-go/tsys/internal/methodcount"
)

// maxMethods bounds the methods of any type of the package: a reader
// holds a type by its methods, and a type with more has more than one
// concern, which go in parts of their own (doc.go, "Parts", says which).
const maxMethods = 25

// embeds are the only embedded fields the package's structs may have,
// each for a reason of its own (methodcount.Unlisted says why so few).
var embeds = map[string][]string{
	// One flat JSON object of counters (doc.go, "Counters").
	"JobStats": {"sched.Stats", "NetStats"},
	// A report as it came, and the timeline that came with it.
	"peerReport": {"NodeReport"},
	// A root's failure is a sched.ErrRemote, which errors.As finds.
	"failedAtRoot": {"sched.ErrRemote"},
}

// TestMethodCounts: no type of the package, engine, Node and inbox
// included, declares more than maxMethods methods, and no struct embeds
// a field but those embeds lists, so that what a type declares is all it
// has.
func TestMethodCounts(t *testing.T) {
	ts, err := methodcount.Read(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ts.Unlisted(embeds) {
		t.Error(e)
	}
	// Without these the bound would hold by not finding them: a parse
	// that lost a file, or a part folded back into another type.
	for _, typ := range []string{"Node", "engine", "inbox", "lender", "borrower", "remote", "ticker", "server", "orphans", "gatherer", "drainer", "gossipInbox"} {
		if len(ts.Methods[typ]) == 0 {
			t.Errorf("type %s declares no method: is the test reading the package?", typ)
		}
	}
	for _, e := range ts.Over(maxMethods) {
		t.Error(e)
	}
	t.Logf("methods: Node %d, engine %d, inbox %d, lender %d", len(ts.Methods["Node"]), len(ts.Methods["engine"]), len(ts.Methods["inbox"]), len(ts.Methods["lender"]))
}
