package cli

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// versionCommand is tsys version (and --version): which build this is, so
// that a bug report or a benchmark result names the code it came from.
func (c *command) versionCommand(args []string, stdout io.Writer) error {
	if len(args) > 0 {
		return usagef("version takes no arguments, got %q: run %s version alone", args[0], c.name)
	}
	info, ok := debug.ReadBuildInfo()
	fmt.Fprintln(stdout, versionString(c.name, info, ok))
	return nil
}

// versionString formats debug.ReadBuildInfo's results; it takes them as
// arguments so that a test can fabricate a build.
func versionString(name string, info *debug.BuildInfo, ok bool) string {
	if !ok || info == nil {
		// A binary built without module support knows only its Go.
		return name + " (unknown) " + runtime.Version()
	}
	s := name + " " + mainVersion(info)
	// go run and go test stamp no revision; only go build in a checkout does.
	if rev := buildSetting(info, "vcs.revision"); rev != "" {
		s += " rev " + shortRev(rev)
		if buildSetting(info, "vcs.modified") == "true" {
			s += "+dirty"
		}
	}
	goVersion := info.GoVersion
	if goVersion == "" {
		goVersion = runtime.Version()
	}
	return s + " " + goVersion
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

// buildSetting is the value of the build setting key, "" when absent.
func buildSetting(info *debug.BuildInfo, key string) string {
	for _, s := range info.Settings {
		if s.Key == key {
			return s.Value
		}
	}
	return ""
}

// shortRev shortens a commit hash to the 12 characters git and Go's
// pseudo-versions use, which is unique enough to find it.
func shortRev(rev string) string {
	return rev[:min(12, len(rev))]
}
