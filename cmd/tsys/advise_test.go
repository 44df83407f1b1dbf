package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsys-go/tsys/advise"
	"github.com/tsys-go/tsys/internal/schedspec"
)

// TestAdviseEveryApp: tsys advise works on every app, each at a small
// size: it calibrates, records and weighs the app's options (EP's and
// RT's leaves, the others' inlining thresholds) and recommends one of
// them, with a command line that runs.
func TestAdviseEveryApp(t *testing.T) {
	for _, c := range []struct {
		app     []string
		options int
	}{
		{[]string{"fib", "-n", "20"}, 6},
		{[]string{"nqueens", "-n", "8"}, 6},
		{[]string{"uts", "--tree", "T5"}, 6},
		{[]string{"ep", "--class", "S", "--grains", "1,16"}, 2},
		{[]string{"rt", "-w", "96", "-h", "64", "--grains", "256,1024"}, 2},
	} {
		args := append(append([]string{"advise"}, c.app...), "--nodes", "1,2,8", "--workers", "1", "--json")
		code, stdout, stderr := run(t, args...)
		if code != 0 {
			t.Errorf("%v: exit %d\n%s", args, code, stderr)
			continue
		}
		var r advise.Report
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stdout)
		}
		rec := r.Advice.Recommended
		if len(r.Options) != c.options || len(r.Advice.Predictions) != c.options*(1+2*len(schedspec.Defaults())) || rec.Seconds <= 0 || rec.Nodes < 1 {
			t.Errorf("%v: %d options, %d predictions, recommended %+v", args, len(r.Options), len(r.Advice.Predictions), rec)
		}
		if !strings.HasPrefix(r.Command, "tsys run "+c.app[0]+" ") || len(r.Advice.Reasons) < 4 {
			t.Errorf("%v: command %q, reasons %q", args, r.Command, r.Advice.Reasons)
		}
	}
}

// TestAdviseCheckSmall: advise-check asks for the advice and measures it
// on real 2-node runs, writing its table and plot; a bad flag is usage.
func TestAdviseCheckSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("starts node processes")
	}
	dir := t.TempDir()
	code, stdout, stderr := run(t, "advise-check", "--jobs", "uts --tree T5", "--reps", "1", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "| uts --tree T5 |") {
		t.Errorf("table:\n%s", stdout)
	}
	for _, f := range []string{"advise-check.md", "advise-check.png"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if code, _, stderr := run(t, "advise-check", "--reps", "0"); code != 2 || !strings.Contains(stderr, "--reps 0") {
		t.Errorf("--reps 0: exit %d, %s", code, stderr)
	}
}
