package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Module is tsys's module path: the main module of the tsys command and
// of the programs in this repository, a dependency of any other program.
const Module = "github.com/tsys-go/tsys"

// Release is the newest release of tsys, as the newest version heading of
// CHANGELOG.md names it ("## v0.1.0 (...)"); v0.0.0 before the first.
// Cutting a release sets both (TestReleaseIsTheChangelogs).
const Release = "v0.1.0"

// Library is the version of tsys a binary was built with. It is the
// module version Go stamped when that names the code: a build at a
// release's tag (v0.1.0), a pseudo-version after it
// (v0.1.1-0.20261201120000-abcdef123456), a module downloaded at a
// version (go get, go install pkg@v0.1.0), with "+dirty" when the tree had
// changes. Otherwise, a build from a source tree that Go stamped no
// version for (go run, go test, -buildvcs=false, a replace directive or
// go.work that points at a checkout), it is Release+"+dev": the source
// of Release or of a later commit.
func Library(info *debug.BuildInfo, ok bool) string {
	if !ok || info == nil {
		return Release + "+dev"
	}
	if info.Main.Path == Module {
		return stamped(info.Main.Version)
	}
	for _, d := range info.Deps {
		if d.Path != Module {
			continue
		}
		if d.Replace != nil {
			// A replacement by a directory has no version of its own;
			// one by another module version is that version's code.
			return stamped(d.Replace.Version)
		}
		return stamped(d.Version)
	}
	return Release + "+dev"
}

// stamped is v when it is a version that names code, else Release+"+dev".
func stamped(v string) string {
	if v == "" || v == "(devel)" || strings.HasPrefix(v, "v0.0.0-00010101000000-") {
		// The last: the placeholder a require line gets for a module that
		// only a replace directive provides.
		return Release + "+dev"
	}
	return v
}
