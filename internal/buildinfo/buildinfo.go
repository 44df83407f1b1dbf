// Package buildinfo names the running binary's build: its module version,
// its revision and Go's version, as the version verb prints them and as a
// node names its binary to a root that runs another.
package buildinfo

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
)

// Version is "NAME VERSION [rev REVISION[+dirty]] [tsys LIBRARY] GO" for
// this binary: LIBRARY, the version of tsys it was built with (Library),
// is there when the binary is another module's program; tsys's own
// commands and programs have it as their VERSION.
func Version(name string) string {
	info, ok := debug.ReadBuildInfo()
	return Format(name, info, ok)
}

// Binary names this process's program for another node: its file name,
// its version line, and its build ID when the version and revision do not
// name its code (two (devel) builds read alike otherwise). Read once.
var Binary = sync.OnceValue(func() string {
	name := "(unknown binary)"
	if exe, err := os.Executable(); err == nil {
		name = filepath.Base(exe)
	}
	info, ok := debug.ReadBuildInfo()
	s := Format(name, info, ok)
	if ok && info.Main.Path != "" {
		s += " (" + info.Main.Path + ")"
	}
	if b := Current(); !b.pinned() && b.ID != "" {
		s += " build ID " + b.ID
	}
	return s
})

// Format formats debug.ReadBuildInfo's results; it takes them as arguments
// so that a test can fabricate a build.
func Format(name string, info *debug.BuildInfo, ok bool) string {
	if !ok || info == nil {
		// A binary built without module support knows only its Go, and
		// the release its tsys source is of.
		return name + " (unknown) tsys " + Library(info, ok) + " " + runtime.Version()
	}
	version, library := mainVersion(info), " tsys "+Library(info, ok)
	if info.Main.Path == Module {
		version, library = Library(info, ok), ""
	}
	s := name + " " + version
	// go run and go test stamp no revision; only go build in a checkout does.
	if rev := setting(info, "vcs.revision"); rev != "" {
		s += " rev " + rev[:min(12, len(rev))] // unique enough, as git's short hashes
		if setting(info, "vcs.modified") == "true" {
			s += "+dirty"
		}
	}
	goVersion := info.GoVersion
	if goVersion == "" {
		goVersion = runtime.Version()
	}
	return s + library + " " + goVersion
}

// mainVersion is the main module's version; go build leaves it empty or
// "(devel)" outside a tagged module, and "(devel)" is what go version -m
// prints then.
func mainVersion(info *debug.BuildInfo) string {
	if info.Main.Version == "" {
		return "(devel)"
	}
	return info.Main.Version
}

// setting is the value of the build setting key, "" when absent.
func setting(info *debug.BuildInfo, key string) string {
	for _, s := range info.Settings {
		if s.Key == key {
			return s.Value
		}
	}
	return ""
}
