package main

import (
	"os"
	"slices"
	"strings"
	"testing"
)

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// apidiff's report as it printed it for a copy of package tsys with methods
// renamed, a parameter's type changed and two names added; a value
// method of a generic type comes without parentheses.
const sampleReport = `Incompatible changes:
- (*Runtime).InlinePolicy: removed
- Workers: changed from func(int) Option to func(int64) Option
- (*Task[A, R]).Fork: removed
- (*Task[A, R]).Name: removed
- (*Task[Span[E], R]).Name: removed
- (*Task[A, R]).Name: removed
- Future[R].Ready: removed
Compatible changes:
- (*Runtime).InlinePolicy2: added
- Config.Name: added
- NewThing: added
`

func TestParseReportSpellsNamesAsGoDoc(t *testing.T) {
	got, err := parseReport("tsys", sampleReport)
	if err != nil {
		t.Fatal(err)
	}
	want := []change{
		{"tsys.Runtime.InlinePolicy", "removed", true},
		{"tsys.Workers", "changed from func(int) Option to func(int64) Option", true},
		{"tsys.Task.Fork", "removed", true},
		{"tsys.Task.Name", "removed", true},
		{"tsys.Future.Ready", "removed", true},
		{"tsys.Runtime.InlinePolicy2", "added", false},
		{"tsys.Config.Name", "added", false},
		{"tsys.NewThing", "added", false},
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%v\nwant\n%v", got, want)
	}
}

func TestParseReportOfNoChangeIsEmpty(t *testing.T) {
	got, err := parseReport("tsys", "")
	if err != nil || len(got) != 0 {
		t.Fatalf("got %v, %v; want no change", got, err)
	}
}

// A format the check does not know must fail it, not read as no change.
func TestParseReportRefusesAnUnknownFormat(t *testing.T) {
	for _, out := range []string{
		"Breaking changes:\n- Run: removed\n",
		"Incompatible changes:\n- Run removed\n",
		"- Run: removed\n",
	} {
		if _, err := parseReport("tsys", out); err == nil || !strings.Contains(err.Error(), "apidiff's report") {
			t.Errorf("%q: error %v, want one about apidiff's report", out, err)
		}
	}
}
