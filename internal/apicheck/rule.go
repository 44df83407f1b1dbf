package main

import (
	"fmt"
	"regexp"
)

// problem is a change CHANGELOG.md does not record as the rule asks, and
// what to write.
type problem struct {
	Change change
	Fix    string
}

var (
	wordRemoved  = regexp.MustCompile(`(?i)\bremoved\b`)
	wordBreaking = regexp.MustCompile(`(?i)\bbreaking\b`)
)

// judge applies CHANGELOG.md's rule to each change: some bullet of the
// Unreleased section names it; an incompatible change's bullet says
// "breaking", or "removed" when the name was deprecated at the baseline
// and so had its release of warning. deprecated holds those names.
func judge(changes []change, bulletList []string, deprecated map[string]bool) []problem {
	var probs []problem
	for _, c := range changes {
		named := naming(c.Name, bulletList)
		if len(named) == 0 {
			probs = append(probs, problem{c, fmt.Sprintf("add a bullet under ## Unreleased that names %s", c.Name)})
			continue
		}
		if !c.Incompatible {
			continue
		}
		if fix := incompatibleFix(c, named, deprecated[c.Name]); fix != "" {
			probs = append(probs, problem{c, fix})
		}
	}
	return probs
}

// incompatibleFix is what the bullets naming an incompatible change lack,
// or "" when one of them says what the rule asks.
func incompatibleFix(c change, named []string, wasDeprecated bool) string {
	for _, b := range named {
		if wordBreaking.MatchString(b) || (wasDeprecated && c.removed() && wordRemoved.MatchString(b)) {
			return ""
		}
	}
	switch {
	case c.removed() && wasDeprecated:
		return fmt.Sprintf("an incompatible change: the bullet naming %s must say \"removed\"", c.Name)
	case c.removed():
		return fmt.Sprintf("%s was not deprecated at the baseline: keep it one more release with a \"// Deprecated: use X\" paragraph, or say \"breaking\" in its bullet if removing it now is deliberate", c.Name)
	default:
		return fmt.Sprintf("an incompatible change: add the new form under a new name and deprecate %s (\"// Deprecated: use X\"), or say \"breaking\" in its bullet if the change is deliberate", c.Name)
	}
}

// naming returns the bullets that name name as go doc spells it, as a
// whole: tsys.Run is not named by tsys.Runtime, nor by tsys.Run.Method.
func naming(name string, bulletList []string) []string {
	re := regexp.MustCompile(`(^|[^\w.])` + regexp.QuoteMeta(name) + `($|[^\w.]|\.($|[^\w]))`)
	var out []string
	for _, b := range bulletList {
		if re.MatchString(b) {
			out = append(out, b)
		}
	}
	return out
}
