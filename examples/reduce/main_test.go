package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/tsys-go/tsys/cli"
)

func TestSumIsVerifiedAndRepeatable(t *testing.T) {
	var first any
	for _, args := range [][]string{
		{"run", "sum", "-n", "3000000", "--workers", "2", "--json"},
		{"run", "sum", "-n", "3000000", "--workers", "1", "--json"},
		{"run", "sum", "-n", "3000000", "--workers", "2", "--inline", "off", "--json"},
	} {
		var out, errb bytes.Buffer
		code := cli.Exec(config, args, &out, &errb)
		var rep map[string]any
		if code != 0 || json.Unmarshal(out.Bytes(), &rep) != nil || rep["verified"] != true {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out.String(), errb.String())
		}
		// The split, not the schedule, sets the rounding.
		if first == nil {
			first = rep["result"]
		} else if rep["result"] != first {
			t.Errorf("%v: sum %v, another run %v", args, rep["result"], first)
		}
	}
	for _, n := range []string{"0", "1", "17"} {
		var out, errb bytes.Buffer
		if code := cli.Exec(config, []string{"run", "sum", "-n", n, "--leaf", "4", "--json"}, &out, &errb); code != 0 {
			t.Errorf("-n %s: exit %d: %s", n, code, errb.String())
		}
	}
}
