package main

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tsys-go/tsys/internal/schedspec"
)

// TestSchedulerHelpFollowsTable: every verb that takes schedulers lists,
// in its -h, every scheduler of schedspec's table and no other name, so
// that a scheduler added to the table shows everywhere and a help text
// cannot fall behind the parser (node's once left out ratebalance).
func TestSchedulerHelpFollowsTable(t *testing.T) {
	for _, c := range []struct{ args []string }{
		{[]string{"run", "-h"}}, {[]string{"node", "-h"}}, {[]string{"sim", "-h"}},
		{[]string{"bench", "-h"}}, {[]string{"advise", "-h"}},
	} {
		code, _, help := run(t, c.args...)
		block := schedFlagBlock(help)
		if code != 0 || block == "" {
			t.Errorf("tsys %v: exit %d, and no --sched or --scheds entry in:\n%s", c.args, code, help)
			continue
		}
		if got := listedSchedulers(block); !slices.Equal(got, schedspec.Names()) {
			t.Errorf("tsys %v lists the schedulers %v, the table has %v:\n%s", c.args, got, schedspec.Names(), block)
		}
		for _, name := range namesWithOptions(block) {
			if !slices.Contains(schedspec.Names(), name) {
				t.Errorf("tsys %v names %s[:OPTIONS], which the table does not have:\n%s", c.args, name, block)
			}
		}
		for _, s := range schedspec.Schedulers() {
			for _, o := range s.Options {
				if !strings.Contains(block, o.String()) {
					t.Errorf("tsys %v leaves out %s's option %s:\n%s", c.args, s.Name, o, block)
				}
			}
		}
	}
}

// schedFlagBlock is the entry of the flag --sched or --scheds in a help
// text, from its first line to the next flag's.
func schedFlagBlock(help string) string {
	var b strings.Builder
	in := false
	for line := range strings.Lines(help) {
		if f, ok := strings.CutPrefix(line, "  -"); ok && !strings.HasPrefix(f, " ") {
			name := strings.TrimLeft(strings.Fields(f)[0], "-")
			in = name == "sched" || name == "scheds"
		}
		if in {
			b.WriteString(line)
		}
	}
	return b.String()
}

// listedSchedulers are the names of the lines of a flag's entry that list
// one scheduler each: indented by the flag package's "\t" and two spaces.
func listedSchedulers(block string) []string {
	var out []string
	for line := range strings.Lines(block) {
		_, rest, ok := strings.Cut(line, "\t  ")
		if !ok || rest == "" || rest[0] == ' ' || strings.HasPrefix(rest, "OPTIONS ") {
			continue
		}
		name, _, _ := strings.Cut(strings.Fields(rest)[0], "[")
		out = append(out, name)
	}
	return out
}

var withOptions = regexp.MustCompile(`([a-z]+)\[:`)

// namesWithOptions are the words a help text writes as NAME[:...], as
// scheduler names are written wherever they are.
func namesWithOptions(block string) []string {
	var out []string
	for _, m := range withOptions.FindAllStringSubmatch(block, -1) {
		out = append(out, m[1])
	}
	return out
}
