package cli_test

import (
	"testing"

	"github.com/tsys-go/tsys/internal/doccode"
)

// The package doc's code is its examples' (example_doc_test.go), which
// compile and run: the doc cannot show an API that has gone.
func TestDocCodeIsExamples(t *testing.T) {
	stale, err := doccode.Stale("doc.go", "example*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range stale {
		t.Errorf("doc.go shows a line no example holds (change the doc to show an example's code): %s", l)
	}
}
