package fishing

import (
	"testing"

	"github.com/tsys-go/tsys/internal/methodcount"
)

// maxMethods bounds the methods of any type of the package: a reader
// holds a type by its methods, and a type with more has more than one
// concern, which go in parts of their own (Policy's doc says which).
const maxMethods = 25

// TestMethodCounts: no type of the package, Policy included, declares
// more than maxMethods methods, and none embeds a field, whose methods
// would count without being declared.
func TestMethodCounts(t *testing.T) {
	ts, err := methodcount.Read(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ts.Unlisted(nil) {
		t.Error(e)
	}
	if len(ts.Methods["Policy"]) == 0 {
		t.Fatal("no method of Policy found: is the test reading the package?")
	}
	for _, e := range ts.Over(maxMethods) {
		t.Error(e)
	}
	t.Logf("Policy: %d methods", len(ts.Methods["Policy"]))
}
