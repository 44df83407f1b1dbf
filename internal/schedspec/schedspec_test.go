package schedspec

import (
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
