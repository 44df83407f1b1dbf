package advise

import "testing"

// TestWithOption: the measured cost is added to a --sched value with or
// without options of its own, and one that sets it is left alone.
func TestWithOption(t *testing.T) {
	for spec, want := range map[string]string{"balance": "balance:cost=3us", "balance:limit=2": "balance:limit=2,cost=3us"} {
		if got := withOption(spec, "cost=3us"); got != want || !setsOption(got, "cost") {
			t.Errorf("withOption(%q) = %q, want %q, which sets cost", spec, got, want)
		}
	}
	if setsOption("balance:limit=2", "cost") || setsOption("ratebalance:movecost=1ms", "cost") || setsOption("balance", "cost") {
		t.Error("setsOption found cost where none is set")
	}
}
