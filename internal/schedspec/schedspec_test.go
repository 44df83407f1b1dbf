package schedspec

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestParse: every scheduler name makes a policy of that name, options
// included; local makes none; a bad name or option says what is wanted.
func TestParse(t *testing.T) {
	for spec, name := range map[string]string{
		"local": "local", "fishing": "fishing:random", "fishing:load,tasks=4": "fishing:load",
		"balance": "balance", "balance:limit=2,period=1ms": "balance", "ratebalance:threshold=0.2": "ratebalance",
	} {
		f, err := Parse(spec)
		if err != nil || !strings.HasPrefix(f.Name(), name) {
			t.Errorf("Parse(%q): %v, name %q, want %q", spec, err, f.Name(), name)
		}
	}
	for spec, want := range map[string]string{
		"psychic": "unknown scheduler", "local:x": "takes no option", "balance:limit=-1": "limit", "ratebalance:period=0s": "period",
	} {
		if _, err := Parse(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q): %v, want an error naming %q", spec, err, want)
		}
	}
}

// TestUnknownNameListsTable: the error for a name the table lacks offers
// every name it has.
func TestUnknownNameListsTable(t *testing.T) {
	_, err := Parse("psychic")
	for _, name := range Names() {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("Parse(psychic): %v, want it to offer %s", err, name)
		}
	}
}

// exampleValues are values of each kind of option, for an option whose
// default is chosen at run time.
var exampleValues = map[string]string{"N": "2", "D": "3ms", "F": "0.5"}

// TestOptionsMatchParsers holds each scheduler's listed options to its
// parser: each is accepted, a listed default makes the same policy as no
// option at all, and an option the table lacks is refused with the
// table's list.
func TestOptionsMatchParsers(t *testing.T) {
	for _, s := range schedulers {
		for _, o := range s.Options {
			val := o.Default
			if val == "" {
				val = exampleValues[o.Value]
			}
			spec := s.Name + ":" + val
			if o.Key != "" {
				spec = s.Name + ":" + o.Key + "=" + val
			}
			f, err := Parse(spec)
			if err != nil {
				t.Errorf("%s lists %s, but Parse(%q): %v", s.Name, o, spec, err)
				continue
			}
			if o.Default == "" {
				continue
			}
			def, _ := Parse(s.Name)
			if got, want := params(f), params(def); !reflect.DeepEqual(got, want) {
				t.Errorf("%s lists %s's default as %s, but Parse(%q) gives %+v and Parse(%q) %+v", s.Name, o, o.Default, spec, got, s.Name, want)
			}
		}
		if len(s.Options) == 0 {
			continue
		}
		_, err := Parse(s.Name + ":nosuch=1")
		for _, o := range s.Options {
			if err == nil || !strings.Contains(err.Error(), o.String()) {
				t.Errorf("Parse(%s:nosuch=1): %v, want it to offer %s", s.Name, err, o)
			}
		}
	}
}

// params is what a policy was made with: its Params method's result.
func params(f Factory) any {
	m := reflect.ValueOf(f("self", "")).MethodByName("Params")
	if !m.IsValid() {
		return nil
	}
	return m.Call(nil)[0].Interface()
}

// TestHelpListsTable: Help names every scheduler with its line, and each
// option with its line and default; List and Names agree with it.
func TestHelpListsTable(t *testing.T) {
	h := Help("scheduler:")
	if !strings.HasPrefix(h, "scheduler:\n") {
		t.Errorf("Help does not begin with its lead:\n%s", h)
	}
	if got := listed(h); !slices.Equal(got, Names()) {
		t.Errorf("Help lists %v, the table has %v:\n%s", got, Names(), h)
	}
	for _, s := range schedulers {
		if !strings.Contains(h, s.Help) || !strings.Contains(List(), s.Name) {
			t.Errorf("Help or List leaves out %s's line %q", s.Name, s.Help)
		}
		for _, o := range s.Options {
			if !strings.Contains(h, o.String()) || !strings.Contains(h, o.Help) || !strings.Contains(h, "default "+o.Default) {
				t.Errorf("Help leaves out %s's option %s, its help or its default", s.Name, o)
			}
		}
	}
}

// listed are the scheduler names a help text lists, one a line indented
// by two spaces, as Help writes them.
func listed(help string) []string {
	var out []string
	for _, line := range strings.Split(help, "\n") {
		if rest, ok := strings.CutPrefix(line, "  "); ok && rest != "" && rest[0] != ' ' && !strings.HasPrefix(rest, "OPTIONS ") {
			name, _, _ := strings.Cut(strings.Fields(rest)[0], "[")
			out = append(out, name)
		}
	}
	return out
}

// TestDefaultsAndSweep: the specs comparisons run parse, name every
// scheduler that moves work once under its defaults (as reports name
// it), and the sweep adds the variants after them.
func TestDefaultsAndSweep(t *testing.T) {
	for _, spec := range Sweep() {
		if f, err := Parse(spec); err != nil || f == nil {
			t.Errorf("Sweep's %q: %v, want a policy", spec, err)
		}
	}
	var movers []string
	for _, s := range schedulers {
		if s.MovesWork() {
			movers = append(movers, s.Name)
		}
	}
	var names []string
	for _, spec := range Defaults() {
		f, _ := Parse(spec)
		if f.Name() != spec {
			t.Errorf("Defaults' %q names its policy %q", spec, f.Name())
		}
		name, _, _ := strings.Cut(spec, ":")
		names = append(names, name)
	}
	if !slices.Equal(names, movers) || !slices.Contains(Sweep(), "fishing:load") || len(Sweep()) <= len(Defaults()) {
		t.Errorf("Defaults %v, Sweep %v: want each of %v once, and the sweep its variants too", Defaults(), Sweep(), movers)
	}
	if !Takes("balance:limit=2", "cost") || Takes("fishing", "cost") || Takes("nosuch", "cost") {
		t.Error("Takes: balance takes cost, fishing and an unknown name do not")
	}
	for _, name := range movers {
		if !strings.Contains(Movers(), name) || strings.Contains(Movers(), "local") {
			t.Errorf("Movers %q: want %s and not local", Movers(), name)
		}
	}
}
