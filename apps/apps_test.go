package apps_test

import (
	"context"
	"fmt"
	"github.com/tsys-go/tsys/cli"
	"strings"
	"testing"

	"github.com/tsys-go/tsys/apps"
	"github.com/tsys-go/tsys/inline"
	"github.com/tsys-go/tsys/tsys"
)

func job(t *testing.T, app string, args ...string) apps.Job {
	t.Helper()
	j, err := apps.ParseJob(app, args...)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// TestAppsAgreeEverywhere: every app gives the serial answer, verified,
// on 1, 2 and 4 workers under every inlining policy.
func TestAppsAgreeEverywhere(t *testing.T) {
	cases := []struct {
		app  string
		args []string
	}{
		{"fib", []string{"-n", "24"}},
		{"nqueens", []string{"-n", "10"}},
		{"uts", []string{"--tree", "T5"}},
		{"uts", []string{"-t", "0", "-b", "200", "-q", "0.124", "-m", "8", "-r", "42"}},
		{"ep", []string{"--class", "S"}},
		{"rt", []string{"-w", "96", "-h", "64", "--samples", "1", "--leaf", "64"}},
		{"rt", []string{"--scene", "tetra", "-w", "64", "-h", "48", "--leaf", "100"}},
		{"rt", []string{"--scene", "balls", "-w", "80", "-h", "60", "--samples", "1", "--flat"}},
		{"rt", []string{"--scene", "balls", "-w", "80", "-h", "60", "--samples", "1", "--flat", "--split", "factoring"}},
	}
	policies := []inline.Policy{inline.Never(), inline.Default(), inline.Everything()}
	for _, c := range cases {
		j := job(t, c.app, c.args...)
		serial, err := j.Serial()
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := j.Verify(serial); err != nil {
			t.Fatalf("%s %v: the serial answer fails verification: %v (checked: %v)", c.app, c.args, err, ok)
		}
		for _, w := range []int{1, 2, 4} {
			for _, pol := range policies {
				if c.app == "uts" && pol == inline.Never() && w == 4 {
					continue // four million frames: covered by 1 and 2 workers
				}
				rt := tsys.New(tsys.Workers(w), tsys.Inline(pol))
				res, _, err := j.Run(context.Background(), rt)
				if err != nil {
					t.Fatalf("%s %v workers=%d inline=%s: %v", c.app, c.args, w, pol, err)
				}
				ok, err := j.Verify(res)
				if err != nil || !ok && c.app != "uts" {
					t.Fatalf("%s %v workers=%d inline=%s: verified=%v, %v", c.app, c.args, w, pol, ok, err)
				}
				if !sameAnswer(c.app, res, serial) {
					t.Fatalf("%s %v workers=%d inline=%s: %v, serial %v", c.app, c.args, w, pol, res.Text, serial.Text)
				}
			}
		}
	}
}

// TestRtSplit: rt --flat's loop is split in halves or by factoring, as
// --split says and Params reports; another value, or factoring without
// --flat (the tile tree has no loop to split), is refused, saying what
// to write.
func TestRtSplit(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--flat"}, "halving"},
		{[]string{"--flat", "--split", "halving"}, "halving"},
		{[]string{"--flat", "--split", "factoring"}, "factoring"},
	} {
		if got := job(t, "rt", c.args...).Params()["split"]; got != c.want {
			t.Errorf("rt %v: params split %v, want %s", c.args, got, c.want)
		}
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--flat", "--split", "thirds"}, []string{`"thirds"`, "halving or factoring"}},
		{[]string{"--split", "factoring"}, []string{"--flat"}},
	} {
		_, err := apps.ParseJob("rt", c.args...)
		if err == nil {
			t.Errorf("rt %v accepted", c.args)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("rt %v: error %q does not say %q", c.args, err, w)
			}
		}
	}
}

func TestLookupUnknownApp(t *testing.T) {
	if _, err := apps.Lookup("nope"); err == nil {
		t.Fatal("unknown app accepted")
	}
}

// sameAnswer compares two results exactly, except EP's sums: summation
// order changes their last bits (NPB verifies them to 1e-8, which Verify
// did); its counts must agree exactly.
func sameAnswer(app string, a, b cli.Result) bool {
	if app == "ep" {
		qa, qb := a.Value.(map[string]any)["q"], b.Value.(map[string]any)["q"]
		return fmt.Sprint(qa) == fmt.Sprint(qb)
	}
	return fmt.Sprint(a.Value) == fmt.Sprint(b.Value)
}
