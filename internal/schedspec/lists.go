package schedspec

import "strings"

// Defaults are the schedulers that move work, each under its defaults and
// named as reports name it ("fishing:random"): what a comparison of
// schedulers runs (the bench presets, the advisor).
func Defaults() []string { return schedulers.defaults() }

func (t table) defaults() []string {
	var out []string
	for _, s := range t {
		if s.MovesWork() {
			out = append(out, s.defaultName())
		}
	}
	return out
}

// Sweep is Defaults with every scheduler's variants after its defaults
// ("fishing:random", "fishing:load", "balance", ...): tsys bench's default
// --scheds.
func Sweep() []string { return schedulers.sweep() }

func (t table) sweep() []string {
	var out []string
	for _, s := range t {
		if !s.MovesWork() {
			continue
		}
		out = append(out, s.defaultName())
		for _, v := range s.Variants {
			out = append(out, s.Name+":"+v)
		}
	}
	return out
}

// defaultName is the name of the scheduler's policy under its defaults,
// or its own name if it has none.
func (s Scheduler) defaultName() string {
	f, err := s.parse("")
	if err != nil || f == nil {
		return s.Name
	}
	return f.Name()
}

// Takes reports whether the scheduler that spec names reads option key:
// the advisor sets "cost" (what a status message costs) to what it
// measured, for whichever scheduler weighs it.
func Takes(spec, key string) bool {
	name, _, _ := strings.Cut(spec, ":")
	for _, s := range schedulers {
		if s.Name != name {
			continue
		}
		for _, o := range s.Options {
			if o.Key == key {
				return true
			}
		}
	}
	return false
}

// Movers lists the schedulers that move work in a phrase, as List does:
// what a caller that needs a policy (calibration's tick) wants.
func Movers() string { return schedulers.movers().list() }

func (t table) movers() table {
	var out table
	for _, s := range t {
		if s.MovesWork() {
			out = append(out, s)
		}
	}
	return out
}
