package buildinfo

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// TestFormat: the version line from fabricated builds, with and
// without a version control stamp.
func TestFormat(t *testing.T) {
	const rev = "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	for _, c := range []struct {
		name string
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{"go run: no version, no vcs", &debug.BuildInfo{GoVersion: "go1.26.0"}, true, "prog (devel) go1.26.0"},
		{"devel, dirty", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}, Settings: vcs("true")}, true, "prog (devel) rev 1a2b3c4d5e6f+dirty go1.26.0"},
		{"tagged, clean", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.2.3"}, Settings: vcs("false")}, true, "prog v1.2.3 rev 1a2b3c4d5e6f go1.26.0"},
		{"short revision kept whole", &debug.BuildInfo{GoVersion: "go1.26.0", Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}}, true, "prog (devel) rev abc go1.26.0"},
		{"no build info", nil, false, "prog (unknown) " + runtime.Version()},
	} {
		if got := Format("prog", c.info, c.ok); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
