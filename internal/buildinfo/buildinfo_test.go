package buildinfo

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// TestFormat: the version line from fabricated builds, with and
// without a version control stamp: another module's program names the
// tsys it was built with; tsys's own has it as its version.
func TestFormat(t *testing.T) {
	const rev = "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	dev := Release + "+dev"
	tsysAt := func(v string) []*debug.Module { return []*debug.Module{{Path: Module, Version: v}} }
	for _, c := range []struct {
		name string
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{"go run: no version, no vcs", &debug.BuildInfo{GoVersion: "go1.26.0"}, true, "prog (devel) tsys " + dev + " go1.26.0"},
		{"devel, dirty", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "example.com/prog", Version: "(devel)"}, Settings: vcs("true")}, true, "prog (devel) rev 1a2b3c4d5e6f+dirty tsys " + dev + " go1.26.0"},
		{"tagged, clean, tsys from the proxy", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "example.com/prog", Version: "v1.2.3"}, Deps: tsysAt("v0.1.0"), Settings: vcs("false")}, true, "prog v1.2.3 rev 1a2b3c4d5e6f tsys v0.1.0 go1.26.0"},
		{"short revision kept whole", &debug.BuildInfo{GoVersion: "go1.26.0", Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}}, true, "prog (devel) rev abc tsys " + dev + " go1.26.0"},
		{"tsys's own, go run", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: Module, Version: "(devel)"}}, true, "tsys " + dev + " go1.26.0"},
		{"tsys's own, at a tag", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: Module, Version: "v0.1.0"}, Settings: vcs("false")}, true, "tsys v0.1.0 rev 1a2b3c4d5e6f go1.26.0"},
		{"no build info", nil, false, "prog (unknown) tsys " + dev + " " + runtime.Version()},
	} {
		name := "prog"
		if c.info != nil && c.info.Main.Path == Module {
			name = "tsys"
		}
		if got := Format(name, c.info, c.ok); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
