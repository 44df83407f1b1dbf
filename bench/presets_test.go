package bench

import (
	"slices"
	"strings"
	"testing"

	"github.com/tsys-go/tsys/internal/schedspec"
)

// TestPresetsCompareEveryScheduler: a preset that compares schedulers
// runs every one of the table that moves work, each parsing as --sched
// does, so that a scheduler added to the table joins the README's
// comparison.
func TestPresetsCompareEveryScheduler(t *testing.T) {
	compared := 0
	for _, p := range Presets {
		i := slices.Index(p.Flags, "--scheds")
		if i < 0 {
			continue
		}
		compared++
		var names []string
		for _, spec := range strings.Split(p.Flags[i+1], ";") {
			if _, err := schedspec.Parse(spec); err != nil {
				t.Errorf("preset %s: %v", p.Name, err)
			}
			name, _, _ := strings.Cut(spec, ":")
			names = append(names, name)
		}
		for _, s := range schedspec.Schedulers() {
			if s.MovesWork() && !slices.Contains(names, s.Name) {
				t.Errorf("preset %s compares %v, without %s", p.Name, names, s.Name)
			}
		}
	}
	if compared == 0 {
		t.Error("no preset compares schedulers")
	}
}
