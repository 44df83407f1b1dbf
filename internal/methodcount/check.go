package methodcount

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Over says, a line each, which types declare more than max methods,
// naming the methods; nil when none does. A test reports each line as an
// error.
func (ts Types) Over(max int) []string {
	var out []string
	for _, typ := range slices.Sorted(maps.Keys(ts.Methods)) {
		if ms := ts.Methods[typ]; len(ms) > max {
			out = append(out, fmt.Sprintf("%s has %d methods, more than %d (split it by concern): %s", typ, len(ms), max, strings.Join(Names(ms), ", ")))
		}
	}
	return out
}

// Unlisted says, a line each, which embedded fields of the structs
// allowed does not list (a struct's name to the types it may embed; nil
// allows none): an embedded field's methods are its struct's too,
// without a line of the struct's saying so.
func (ts Types) Unlisted(allowed map[string][]string) []string {
	var out []string
	for _, typ := range slices.Sorted(maps.Keys(ts.Embeds)) {
		for _, f := range ts.Embeds[typ] {
			if !slices.Contains(allowed[typ], f.Name) {
				out = append(out, fmt.Sprintf("%s: %s embeds %s: its methods would be %s's too", f.Pos, typ, f.Name, typ))
			}
		}
	}
	return out
}
