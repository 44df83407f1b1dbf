package main

import (
	"bufio"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// change is one line of apidiff's report, its name spelled as go doc
// spells it (tsys.Runtime.Pool), which is how CHANGELOG.md must name it.
type change struct {
	Name         string // package name first: tsys.Workers, tsys.Runtime.Pool
	What         string // apidiff's words: "added", "removed", "changed from ... to ..."
	Incompatible bool
}

func (c change) removed() bool { return c.What == "removed" }

func (c change) String() string { return c.Name + ": " + c.What }

// methodName matches apidiff's spelling of a method: (*T).M, (T).M, or
// on a generic type (*Task[A, R]).M or (*Task[Span[E], R]).M, whose type
// arguments it does not need to read; a value method of a generic type
// comes without the parentheses, Future[R].Ready.
var methodName = regexp.MustCompile(`^(?:\(\*?([A-Za-z_]\w*)(?:\[.*\])?\)|([A-Za-z_]\w*)\[.*\])\.(\w+)$`)

// parseReport reads apidiff's output for the package named pkg: a
// section "Incompatible changes:" and one "Compatible changes:", each a
// list of "- NAME: WHAT". Anything else is an error, so that a new format
// of apidiff's cannot pass for "no change".
func parseReport(pkg, out string) ([]change, error) {
	var changes []change
	section := ""
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.TrimSpace(l) == "":
		case l == "Incompatible changes:" || l == "Compatible changes:":
			section = l
		case strings.HasPrefix(l, "- ") && section != "":
			name, what, ok := strings.Cut(strings.TrimPrefix(l, "- "), ": ")
			if !ok {
				return nil, fmt.Errorf("apidiff's report for %s: a line without \"NAME: WHAT\": %q", pkg, l)
			}
			c := change{
				Name:         pkg + "." + docName(name),
				What:         what,
				Incompatible: section == "Incompatible changes:",
			}
			// apidiff repeats a generic type's method once per
			// instantiation the package mentions.
			if !slices.Contains(changes, c) {
				changes = append(changes, c)
			}
		default:
			return nil, fmt.Errorf("apidiff's report for %s: a line the check cannot read: %q (has apidiff's format changed?)", pkg, l)
		}
	}
	return changes, nil
}

// docName turns apidiff's (*T).M into go doc's T.M; other names are the
// same in both.
func docName(name string) string {
	if m := methodName.FindStringSubmatch(name); m != nil {
		return m[1] + m[2] + "." + m[3]
	}
	return name
}
