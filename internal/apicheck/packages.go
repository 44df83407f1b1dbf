package main

// publicPackages are the packages whose exported names are tsys's public
// API, as CHANGELOG.md's header lists them: what a program imports (tsys,
// cli, and inline for tsys.Inline's policy). The rest of the module is
// the runtime's own (internal/) or the laboratory's.
// TestPublicPackagesExist holds this list to the tree and to the header.
var publicPackages = []string{
	"github.com/tsys-go/tsys/tsys",
	"github.com/tsys-go/tsys/cli",
	"github.com/tsys-go/tsys/inline",
}

// apidiffModule is the apidiff the check runs, pinned so that the check's
// verdict does not change with a newer release of it. The first run
// downloads it through the module proxy; later runs build it from the
// module cache.
const apidiffModule = "golang.org/x/exp/cmd/apidiff@v0.0.0-20261113113407-e3970619a1a4"
