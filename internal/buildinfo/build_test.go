package buildinfo

import (
	"encoding/binary"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
)

// TestReadBuildIDOfThisBinary: the build ID read from the running test
// binary is the one go tool buildid reads.
func TestReadBuildIDOfThisBinary(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip("no executable path:", err)
	}
	got, err := ReadBuildID(exe)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "tool", "buildid", exe).Output()
	if err != nil {
		t.Skip("go tool buildid:", err)
	}
	if want := strings.TrimSpace(string(out)); got != want {
		t.Fatalf("build ID %q, go tool buildid says %q", got, want)
	}
	if Current().ID != got {
		t.Fatalf("Current().ID = %q, want %q", Current().ID, got)
	}
}

// TestMarkedBuildID: the text marker is found wherever it lies, and a
// truncated or absent one is not mistaken for an ID.
func TestMarkedBuildID(t *testing.T) {
	body := "junk\xff Go build ID: \"abc/def\"\n \xffmore"
	if id, ok := markedBuildID([]byte(body)); !ok || id != "abc/def" {
		t.Fatalf("got %q, %v", id, ok)
	}
	for _, bad := range []string{"", "\xff Go build ID: \"abc", "no marker at all", "\xff Go build ID: \"a\\q\"\n \xff"} {
		if id, ok := markedBuildID([]byte(bad)); ok {
			t.Errorf("%q: found %q", bad, id)
		}
	}
	if _, err := ReadBuildID(os.DevNull); err == nil {
		t.Error("an empty file has a build ID")
	}
}

// TestParseNote: a well-formed note is read; short, foreign or
// overlong ones are refused without reading past the bytes.
func TestParseNote(t *testing.T) {
	note := func(name string, typ uint32, desc string, descSize uint32) []byte {
		b := binary.LittleEndian.AppendUint32(nil, uint32(len(name)))
		b = binary.LittleEndian.AppendUint32(b, descSize)
		b = binary.LittleEndian.AppendUint32(b, typ)
		b = append(b, name...)
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
		return append(b, desc...)
	}
	if id, err := parseNote(note("Go\x00\x00", 4, "x/y", 3), binary.LittleEndian); err != nil || id != "x/y" {
		t.Fatalf("got %q, %v", id, err)
	}
	for name, b := range map[string][]byte{
		"short":        {1, 2, 3},
		"other type":   note("Go\x00\x00", 3, "x/y", 3),
		"other name":   note("GNU\x00", 4, "x/y", 3),
		"desc too big": note("Go\x00\x00", 4, "x/y", 1<<31),
	} {
		if id, err := parseNote(b, binary.LittleEndian); err == nil {
			t.Errorf("%s: read %q", name, id)
		}
	}
}

// TestSame: pinned builds compare by module, version, revision and
// flags, whatever their build IDs (one revision on two platforms); any
// other build by its build ID.
func TestSame(t *testing.T) {
	rel := Build{Path: "example.com/p", Version: "v1.2.3", Revision: "abc", ID: "id1", Go: "go1.26"}
	other := rel
	other.ID = "id2"
	devel := Build{Path: "example.com/p", Version: "(devel)", ID: "id1"}
	cases := []struct {
		name string
		a, b Build
		same bool
	}{
		{"one release on two platforms", rel, other, true},
		{"another revision", rel, func() Build { b := rel; b.Revision = "abd"; return b }(), false},
		{"another -ldflags", rel, func() Build { b := rel; b.Flags = "-ldflags=-X main.v=2"; return b }(), false},
		{"a dirty tree is known by its ID", func() Build { b := rel; b.Modified = true; return b }(), other, false},
		{"devel, one ID", devel, devel, true},
		{"devel, two IDs", devel, func() Build { b := devel; b.ID = "id3"; return b }(), false},
		{"no ID read", Build{Version: "(devel)"}, Build{Version: "(devel)"}, false},
		{"go install of one tag on two platforms", Build{Path: "p", Version: "v1.0.0", ID: "a"}, Build{Path: "p", Version: "v1.0.0", ID: "b"}, true},
		{"two tags", Build{Path: "p", Version: "v1.0.0"}, Build{Path: "p", Version: "v1.0.1"}, false},
		{"a devel build of a clean revision", Build{Version: "(devel)", Revision: "abc", ID: "a"}, Build{Version: "(devel)", Revision: "abc", ID: "b"}, true},
		{"a version marked dirty", Build{Version: "v1.0.1-0.2026-abc+dirty", ID: "a"}, Build{Version: "v1.0.1-0.2026-abc+dirty", ID: "b"}, false},
	}
	for _, c := range cases {
		if got := Same(c.a, c.b); got != c.same {
			t.Errorf("%s: Same = %v", c.name, got)
		}
	}
	if s := devel.String(); !strings.Contains(s, "build ID id1") || !strings.Contains(s, "(devel)") {
		t.Errorf("a devel build reads %q", s)
	}
	if s := rel.String(); strings.Contains(s, "build ID") || !strings.Contains(s, "v1.2.3 rev abc") {
		t.Errorf("a release reads %q", s)
	}
}

// TestFromInfo: the flags that change code are kept, the others not.
func TestFromInfo(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.26", Main: debug.Module{Path: "example.com/p", Version: "v1.0.0"},
		Settings: []debug.BuildSetting{{Key: "-ldflags", Value: "-X main.v=2"}, {Key: "-gcflags", Value: "-N"},
			{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}}}
	b := FromInfo(info, true)
	if b.Flags != "-ldflags=-X main.v=2" || b.Revision != "abc" || !b.Modified || b.Version != "v1.0.0" {
		t.Fatalf("%+v", b)
	}
	if b := FromInfo(nil, false); b.Version != "(unknown)" || b.Go == "" {
		t.Fatalf("no build info: %+v", b)
	}
}

// TestBinaryNamesItsBuild: a binary whose version does not name its code
// (a test binary is (devel)) is named with its build ID, so that two
// builds' names differ.
func TestBinaryNamesItsBuild(t *testing.T) {
	b := Current()
	if b.pinned() || b.ID == "" {
		t.Skip("this test binary's version names its code")
	}
	if !strings.Contains(Binary(), "build ID "+b.ID) {
		t.Fatalf("Binary() = %q, want it to name build ID %s", Binary(), b.ID)
	}
}
