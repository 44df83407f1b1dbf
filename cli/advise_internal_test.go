package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/tsys-go/tsys/internal/calibrate"
	"github.com/tsys-go/tsys/tsys"
)

// TestAdviseCalibrationFails: a calibration that fails ends advise with
// exit 1 and calibration's own message, which says what to do, before
// the program runs at all.
func TestAdviseCalibrationFails(t *testing.T) {
	defer func(m func(context.Context, calibrate.Options) (calibrate.Costs, error)) { measureCosts = m }(measureCosts)
	measureCosts = func(context.Context, calibrate.Options) (calibrate.Costs, error) {
		return calibrate.Costs{}, errors.New("no echo of a 16 KiB message within 5s over loopback: is the machine overloaded? retry, or pass --startup and --per-byte to skip calibration")
	}
	job := &countedJob{}
	cfg := Config{Name: "prog", Programs: []Program{{Name: "p", Flags: func(*flag.FlagSet) func() (Job, error) {
		return func() (Job, error) { return job, nil }
	}}}}
	var errb bytes.Buffer
	code := Exec(cfg, []string{"advise", "p"}, io.Discard, &errb)
	if code != 1 || !strings.Contains(errb.String(), "advise: calibration failed: no echo of a 16 KiB message") {
		t.Fatalf("exit %d, %q", code, errb.String())
	}
	if job.runs != 0 {
		t.Errorf("the program ran %d times after calibration failed", job.runs)
	}
}

// countedJob counts its runs.
type countedJob struct{ runs int }

func (j *countedJob) Params() map[string]any { return nil }
func (j *countedJob) Run(context.Context, *tsys.Runtime) (Result, tsys.Stats, error) {
	j.runs++
	return Result{}, tsys.Stats{}, nil
}
