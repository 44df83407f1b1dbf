package schedspec

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tsys-go/tsys/internal/clusterpolicy"
)

// Factory makes the cluster scheduler policy of a node; nil for local,
// whose nodes move no work between them.
type Factory func(self clusterpolicy.NodeID, zone string) clusterpolicy.Policy

// Name is the scheduler's name as reports give it.
func (p Factory) Name() string {
	if p == nil {
		return "local"
	}
	return p("", "").Name()
}

// table is a list of schedulers; the package's functions read the one
// list, schedulers, and tests a copy with a scheduler added.
type table []Scheduler

var errNoOption = errors.New("local takes no option")

// Parse reads --sched: NAME[:OPTIONS], a scheduler of the table (Help lists
// them) and its comma-separated options.
func Parse(s string) (Factory, error) { return schedulers.parse(s) }

func (t table) parse(s string) (Factory, error) {
	name, arg, _ := strings.Cut(s, ":")
	for _, sc := range t {
		if sc.Name == name {
			f, err := sc.parse(arg)
			if err != nil {
				return nil, fmt.Errorf("--sched %s: %w", s, err)
			}
			return f, nil
		}
	}
	return nil, fmt.Errorf("unknown scheduler %q: want %s (-h lists their options)", s, t.list())
}

// Schedulers is the table, in its order, for a caller that lists or
// weighs them: a copy, which changes nothing for Parse.
func Schedulers() []Scheduler { return append([]Scheduler(nil), schedulers...) }

// Names are the schedulers' names, in the table's order.
func Names() []string { return schedulers.names() }

func (t table) names() []string {
	var out []string
	for _, s := range t {
		out = append(out, s.Name)
	}
	return out
}
