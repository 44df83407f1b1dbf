package cli_test

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/tsys-go/tsys/cli"
	"github.com/tsys-go/tsys/internal/cliseam"
)

// TestRunsOfOneProgramApart: two command lines of one Config run at once
// (tests in parallel) each get options of their own, so each doubles its
// own -n; run under -race, a shared option would be a race as well as a
// wrong answer.
func TestRunsOfOneProgramApart(t *testing.T) {
	const runs = 8
	outs := make([]bytes.Buffer, runs)
	codes := make([]int, runs)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := []string{"run", "double", "-n", fmt.Sprint(i), "--workers", "1", "--timeout", "1m"}
			codes[i] = cli.Exec(config, args, &outs[i], io.Discard)
		}()
	}
	wg.Wait()
	for i := range runs {
		if first, _, _ := strings.Cut(outs[i].String(), "\n"); codes[i] != 0 || first != fmt.Sprintf("double: %d", 2*i) {
			t.Errorf("run %d: exit %d, %q; want 0 and double: %d", i, codes[i], first, 2*i)
		}
	}
}

// TestOptionsReturningNil: a Program whose Options gives no value fails
// its run with a message that says so, not a panic.
func TestOptionsReturningNil(t *testing.T) {
	cfg := cli.Config{Name: "prog", Programs: []cli.Program{{Name: "p", Options: func() cli.Options { return nil }}}}
	var errb bytes.Buffer
	if code := cli.Exec(cfg, []string{"run", "p"}, io.Discard, &errb); code != 2 || !strings.Contains(errb.String(), `cli.Program "p": Options returned nil`) {
		t.Errorf("exit %d, %q", code, errb.String())
	}
}

// TestSeamChecksARun: the tsys command's benchmark driver checks a run's
// command line through cliseam, which says what it got when handed
// anything but a Config.
func TestSeamChecksARun(t *testing.T) {
	if err := cliseam.CheckRun(config, []string{"double", "-n", "4"}); err != nil {
		t.Errorf("a good run: %v", err)
	}
	if err := cliseam.CheckRun(config, []string{"double", "-n", "-4"}); err == nil || err.Error() != "-n -4: want 0 or more" {
		t.Errorf("a bad -n: %v", err)
	}
	if err := cliseam.CheckRun(&config, nil); err == nil || !strings.Contains(err.Error(), "want a cli.Config, got *cli.Config") {
		t.Errorf("a *Config: %v", err)
	}
}
