package buildinfo

import (
	"os"
	"regexp"
	"runtime/debug"
	"testing"
)

// TestReleaseIsTheChangelogs: Release is the version of CHANGELOG.md's
// newest release heading, v0.0.0 while there is none: cutting a release
// sets both.
func TestReleaseIsTheChangelogs(t *testing.T) {
	b, err := os.ReadFile("../../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	want := "v0.0.0"
	if m := regexp.MustCompile(`(?m)^## (v\d+\.\d+\.\d+) `).FindSubmatch(b); m != nil {
		want = string(m[1])
	}
	if Release != want {
		t.Errorf("Release is %s, CHANGELOG.md's newest release %s: set internal/buildinfo.Release to it", Release, want)
	}
}

// TestLibrary: the version of tsys is the one Go stamped when it names
// code, Release+"+dev" when the build came from a source tree.
func TestLibrary(t *testing.T) {
	dev := Release + "+dev"
	dep := func(m debug.Module) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Path: "example.com/prog", Version: "(devel)"}, Deps: []*debug.Module{&m}}
	}
	for _, c := range []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"tsys at a tag", &debug.BuildInfo{Main: debug.Module{Path: Module, Version: "v0.1.0"}}, "v0.1.0"},
		{"tsys after a tag", &debug.BuildInfo{Main: debug.Module{Path: Module, Version: "v0.1.1-0.20261201120000-abcdef123456+dirty"}}, "v0.1.1-0.20261201120000-abcdef123456+dirty"},
		{"tsys by go run", &debug.BuildInfo{Main: debug.Module{Path: Module, Version: "(devel)"}}, dev},
		{"a dependency from the proxy", dep(debug.Module{Path: Module, Version: "v0.1.0"}), "v0.1.0"},
		{"a dependency replaced by a checkout", dep(debug.Module{Path: Module, Version: "v0.1.0", Replace: &debug.Module{Path: "../tsys"}}), dev},
		{"a dependency replaced by a fork's version", dep(debug.Module{Path: Module, Version: "v0.1.0", Replace: &debug.Module{Path: "example.com/fork", Version: "v0.1.2"}}), "v0.1.2"},
		{"a replace's placeholder", dep(debug.Module{Path: Module, Version: "v0.0.0-00010101000000-000000000000"}), dev},
		{"a workspace module", dep(debug.Module{Path: Module, Version: "(devel)"}), dev},
		{"no tsys at all", &debug.BuildInfo{Main: debug.Module{Path: "example.com/prog"}}, dev},
	} {
		if got := Library(c.info, true); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if got := Library(nil, false); got != dev {
		t.Errorf("no build info: %q, want %q", got, dev)
	}
}
