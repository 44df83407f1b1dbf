package bench

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tsys-go/tsys/internal/schedspec"
)

// Preset is a named benchmark: the flags of tsys bench it stands for.
type Preset struct {
	Name, About string
	Flags       []string
}

// everyScheduler is every scheduler that moves work, under its defaults,
// as --scheds takes them: a scheduler added to the table (package
// schedspec) joins the README's comparison without an edit here.
var everyScheduler = strings.Join(schedspec.Defaults(), ";")

// Presets are the benchmarks bench/README.md reports. "readme" regenerates
// its scheduler comparison: the tables, the plots and the CSV behind them.
var Presets = []Preset{
	{
		Name:  "readme",
		About: "bench/README.md's scheduler comparison: every scheduler on EP, UTS and RT (trees and flat) on 1 to 4 nodes",
		Flags: []string{
			"--apps", "ep --class W;uts --tree T1;uts --tree T3;rt --verify=false;rt --flat --verify=false",
			"--nodes", "1,2,3,4", "--workers", "1", "--scheds", everyScheduler,
			"--reps", "3", "--out", "bench/results/readme", "--readme", "bench/README.md",
		},
	},
	{
		Name:  "loaded",
		About: "bench/README.md's loaded nodes, Siegell's scenarios: 2 pinned nodes, node 1 hogged not at all, constantly, on/off slowly and quickly",
		Flags: []string{
			"--apps", "rt --flat --verify=false;ep --class W",
			"--nodes", "2", "--workers", "1", "--scheds", everyScheduler, "--serial=false",
			"--loads", "pin;1=0.5;1=0.5:2s/2s;1=0.5:50ms/50ms",
			"--reps", "5", "--out", "bench/results/loaded", "--readme", "bench/README.md",
		},
	},
	{
		Name:  "quick",
		About: "a minute's look: EP and UTS T1 under every scheduler on 1 and 2 nodes",
		Flags: []string{"--apps", "ep --class S;uts --tree T1", "--nodes", "1,2", "--reps", "3"},
	},
}

// LookupPreset finds a preset by name.
func LookupPreset(name string) (Preset, error) {
	i := slices.IndexFunc(Presets, func(p Preset) bool { return p.Name == name })
	if i < 0 {
		var names []string
		for _, p := range Presets {
			names = append(names, p.Name)
		}
		return Preset{}, fmt.Errorf("unknown preset %q: want one of %s", name, strings.Join(names, ", "))
	}
	return Presets[i], nil
}
