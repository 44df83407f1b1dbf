package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/tsys-go/tsys/cli"
)

// found runs the command line in this process and returns its verified
// result.
func found(t *testing.T, args ...string) (best, nodes int64) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Exec(config, append(args, "--json"), &out, &errb)
	var rep struct {
		Result   map[string]int64 `json:"result"`
		Verified bool             `json:"verified"`
	}
	if code != 0 || json.Unmarshal(out.Bytes(), &rep) != nil || !rep.Verified {
		t.Fatalf("%v: exit %d\n%s%s", args, code, out.String(), errb.String())
	}
	return rep.Result["best"], rep.Result["nodes"]
}

// TestOrderedKeepsTheSerialOrder: on one worker the ordered form looks at
// exactly the nodes the serial search does, whatever the inlining policy
// makes of its forks; the natural form, whose forked child runs after the
// other whenever the fork is a task, looks at more. Every form finds the
// optimum, on one worker and two.
func TestOrderedKeepsTheSerialOrder(t *testing.T) {
	for _, n := range []string{"30", "40", "50"} {
		_, serialNodes := found(t, "run", "knapsack", "-n", n, "--serial")
		for _, inline := range []string{"load:2", "off", "always"} {
			if _, nodes := found(t, "run", "knapsack", "-n", n, "--form", "ordered", "--workers", "1", "--inline", inline); nodes != serialNodes {
				t.Errorf("-n %s --inline %s: ordered looked at %d nodes, serial at %d", n, inline, nodes, serialNodes)
			}
		}
		found(t, "run", "knapsack", "-n", n, "--form", "ordered", "--workers", "2")
		if n != "50" { // natural looks at tens of millions of nodes there
			found(t, "run", "knapsack", "-n", n, "--form", "natural", "--workers", "2")
		}
	}
	_, serialNodes := found(t, "run", "knapsack", "-n", "40", "--serial")
	if _, nodes := found(t, "run", "knapsack", "-n", "40", "--form", "natural", "--workers", "1", "--inline", "off"); nodes <= serialNodes {
		t.Errorf("natural with every fork a task looked at %d nodes, serial %d: want more", nodes, serialNodes)
	}
}
