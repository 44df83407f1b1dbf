package main

import (
	"slices"
	"strings"
	"testing"
)

const sampleChangelog = `# Changelog

Header text naming tsys.Run, which is no bullet.

## Unreleased

- tsys.Workers: n <= 0 means GOMAXPROCS.
- tsys.Runtime.Close added, and
  tsys.Loop.Range wrapped onto the next line.
* cli.Config.Name, a star bullet.

## v0.2.0 (2026-11-30, commit 0123abc)

- tsys.Old: removed.

## Baseline (2026-11-25, commit 6de0815)
`

func TestParseChangelogReadsUnreleasedAndNewestRelease(t *testing.T) {
	cl, err := parseChangelog(sampleChangelog)
	if err != nil {
		t.Fatal(err)
	}
	if cl.Baseline != "0123abc" {
		t.Errorf("baseline %q, want the newest release's commit 0123abc", cl.Baseline)
	}
	want := []string{
		"tsys.Workers: n <= 0 means GOMAXPROCS.",
		"tsys.Runtime.Close added, and tsys.Loop.Range wrapped onto the next line.",
		"cli.Config.Name, a star bullet.",
	}
	if !slices.Equal(cl.Bullets, want) {
		t.Errorf("bullets\n%q\nwant\n%q", cl.Bullets, want)
	}
}

func TestParseChangelogSaysWhatIsMissing(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"no Unreleased", "# Changelog\n\n## v1 (commit abcdef1)\n", `no "## Unreleased" section`},
		{"no release", "# Changelog\n\n## Unreleased\n\n- x\n", "no release below"},
		{"release without commit", "## Unreleased\n\n## v1.0.0 (2026-01-01)\n", "names no commit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseChangelog(tc.text)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// The project's own CHANGELOG.md must parse, and name a commit.
func TestParseOwnChangelog(t *testing.T) {
	cl, err := parseChangelog(readFile(t, "../../CHANGELOG.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cl.Baseline) < 7 {
		t.Fatalf("baseline %q", cl.Baseline)
	}
}
