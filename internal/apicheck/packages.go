package main

// publicPackages are the packages whose exported names are tsys's public
// API, as CHANGELOG.md's header lists them: what a program imports (tsys,
// cli, inline for tsys.Inline's policy) and sched, which tsys's aliases and
// Runtime.Pool reach. The rest are the laboratory's.
var publicPackages = []string{
	"github.com/tsys-go/tsys/tsys",
	"github.com/tsys-go/tsys/cli",
	"github.com/tsys-go/tsys/inline",
	"github.com/tsys-go/tsys/sched",
}

// apidiffModule is the apidiff the check runs, pinned so that the check's
// verdict does not change with a newer release of it. The first run
// downloads it through the module proxy; later runs build it from the
// module cache.
const apidiffModule = "golang.org/x/exp/cmd/apidiff@v0.0.0-20261113113407-e3970619a1a4"
