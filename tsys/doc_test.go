package tsys_test

import (
	"testing"

	"github.com/tsys-go/tsys/internal/doccode"
)

// The package doc's code is its examples' (example_doc_test.go), which
// compile and run: the doc cannot show an API that has gone.
func TestDocCodeIsExamples(t *testing.T) { doccode.CheckPackageDoc(t) }
