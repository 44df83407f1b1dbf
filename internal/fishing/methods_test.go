package fishing

import (
	"strings"
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
	for typ, fields := range ts.Embeds {
		for _, f := range fields {
			t.Errorf("%s: %s embeds %s: its methods would be %s's too", f.Pos, typ, f.Name, typ)
		}
	}
	if len(ts.Methods["Policy"]) == 0 {
		t.Fatal("no method of Policy found: is the test reading the package?")
	}
	for typ, ms := range ts.Methods {
		if len(ms) > maxMethods {
			t.Errorf("%s has %d methods, more than %d: %s", typ, len(ms), maxMethods, strings.Join(methodcount.Names(ms), ", "))
		}
	}
	t.Logf("Policy: %d methods", len(ts.Methods["Policy"]))
}
