package schedspec

import (
	"strings"
)

// Help is the help of a flag that takes schedulers: lead (what the flag
// does, and its default), then every scheduler of the table with its one
// line, and under it its options, each with its default. The run, node,
// sim, bench and advise verbs all print it, so that none lists a
// scheduler the parser refuses or leaves out one it takes.
func Help(lead string) string { return schedulers.help(lead) }

func (t table) help(lead string) string {
	nameWidth, optWidth := 0, 0
	for _, s := range t {
		nameWidth = max(nameWidth, len(s.spelling()))
		for _, o := range s.Options {
			optWidth = max(optWidth, len(o.String()))
		}
	}
	var b strings.Builder
	b.WriteString(lead)
	for _, s := range t {
		b.WriteString("\n  " + pad(s.spelling(), nameWidth+2) + s.Help)
		for _, o := range s.Options {
			b.WriteString("\n      " + pad(o.String(), optWidth+2) + o.Help)
			if o.Default != "" {
				b.WriteString(" (default " + o.Default + ")")
			}
		}
	}
	if len(t) > 0 {
		b.WriteString("\n  OPTIONS follow the name after a colon, comma-separated, e.g. " + t.example() + ".")
	}
	return b.String()
}

// List is the schedulers in a phrase, as an error's "want ...": "local,
// fishing[:OPTIONS] or balance[:OPTIONS]".
func List() string { return schedulers.list() }

func (t table) list() string {
	var s []string
	for _, sc := range t {
		s = append(s, sc.spelling())
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// spelling is how help writes the scheduler: NAME, or NAME[:OPTIONS] for
// one that takes options.
func (s Scheduler) spelling() string {
	if len(s.Options) == 0 {
		return s.Name
	}
	return s.Name + "[:OPTIONS]"
}

// example is a --sched value with options, from the table, for the
// help's last line: the first variant of a scheduler and one option set to
// its default.
func (t table) example() string {
	for _, s := range t {
		for _, o := range s.Options {
			if o.Key != "" && o.Default != "" && len(s.Variants) > 0 {
				return s.Name + ":" + s.Variants[0] + "," + o.Key + "=" + o.Default
			}
		}
	}
	return t[0].Name
}

func pad(s string, width int) string {
	return s + strings.Repeat(" ", max(1, width-len(s)))
}
