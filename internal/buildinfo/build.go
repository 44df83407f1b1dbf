package buildinfo

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
)

// Build identifies a binary for nodes that must run the same program: a
// job's root sends its Build, and a node compares it with its own (Same).
type Build struct {
	// Path is the main module's path; Version its version ("(devel)"
	// when go build stamped none).
	Path, Version string
	// Revision is the VCS revision go build stamped (empty: none), and
	// Modified says the working tree had changes then.
	Revision string
	Modified bool
	// Flags are the build flags that change a program's code without
	// changing its revision (-tags, -ldflags), as go version -m shows
	// them.
	Flags string
	// ID is the Go build ID of the executable (go tool buildid), which
	// differs whenever the code does; empty when it could not be read.
	ID string
	// Go is the toolchain's version.
	Go string
}

// codeFlags are the build settings that change what a binary does
// without changing its module version or revision.
var codeFlags = []string{"-tags", "-ldflags"}

// Current is this process's Build, read once.
var Current = sync.OnceValue(func() Build {
	info, ok := debug.ReadBuildInfo()
	b := FromInfo(info, ok)
	if exe, err := os.Executable(); err == nil {
		b.ID, _ = ReadBuildID(exe)
	}
	return b
})

// FromInfo is the Build debug.ReadBuildInfo describes, without its build
// ID; it takes the results as arguments so that a test can fabricate one.
func FromInfo(info *debug.BuildInfo, ok bool) Build {
	if !ok || info == nil {
		return Build{Version: "(unknown)", Go: runtime.Version()}
	}
	b := Build{Path: info.Main.Path, Version: mainVersion(info), Revision: setting(info, "vcs.revision"),
		Modified: setting(info, "vcs.modified") == "true", Go: info.GoVersion}
	var flags []string
	for _, k := range codeFlags {
		if v := setting(info, k); v != "" {
			flags = append(flags, k+"="+v)
		}
	}
	b.Flags = strings.Join(flags, " ")
	if b.Go == "" {
		b.Go = runtime.Version()
	}
	return b
}

// pinned says whether b's version or revision names its code: a module
// version (go install pkg@v1.2.3, whose source the module proxy keeps
// unchanged) or a revision, from a tree without changes. Any other build
// (go run, go test, a tree with changes) is known by its build ID alone.
func (b Build) pinned() bool {
	if b.Modified || strings.HasSuffix(b.Version, "+dirty") {
		return false
	}
	moduleVersion := b.Version != "" && b.Version != "(devel)" && b.Version != "(unknown)"
	return moduleVersion || b.Revision != ""
}

// Same says whether a and b are builds of the same code: the same module,
// version, revision and code-changing flags when both are pinned (so that
// one revision built for two platforms is one build); otherwise the same
// build ID. Two builds whose ID could not be read are not known to be
// the same.
func Same(a, b Build) bool {
	if a.pinned() && b.pinned() {
		return a.Path == b.Path && a.Version == b.Version && a.Revision == b.Revision && a.Flags == b.Flags
	}
	return a.ID != "" && a.ID == b.ID
}

// String names b for a person: module, version, revision, flags, and the
// build ID when the version and revision do not name the code.
func (b Build) String() string {
	var s strings.Builder
	if b.Path != "" {
		s.WriteString(b.Path + " ")
	}
	s.WriteString(b.Version)
	if b.Revision != "" {
		fmt.Fprintf(&s, " rev %s", b.Revision[:min(12, len(b.Revision))])
		if b.Modified {
			s.WriteString("+dirty")
		}
	}
	if b.Flags != "" {
		fmt.Fprintf(&s, " (%s)", b.Flags)
	}
	if !b.pinned() {
		id := b.ID
		if id == "" {
			id = "unreadable"
		}
		fmt.Fprintf(&s, " build ID %s", id)
	}
	return s.String() + " " + b.Go
}
