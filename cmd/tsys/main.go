package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"

	"github.com/tsys-go/tsys/advise"
	"github.com/tsys-go/tsys/apps"
	"github.com/tsys-go/tsys/cli"
)

// config is the tsys command: the command line every tsys program has
// (package cli), running the apps of package apps, and the laboratory's
// own verbs, which compare schedulers.
var config = cli.Config{Name: "tsys", Programs: apps.Programs()}

// The verbs are set in init: bench checks its runs against config, and
// a variable's initialiser may not refer back to it.
func init() {
	config.Commands = []cli.Command{
		{Name: "bench", Usage: "[flags]", Summary: "the scheduler benchmark matrix", Run: benchCommand},
		{Name: "sim", Usage: "[flags]", Summary: "simulate the schedulers on many virtual nodes", Run: simCommand},
		advise.Command(config),
		{Name: "advise-check", Usage: "[flags]", Summary: "hold tsys advise to real 2-node runs of EP, RT and UTS", Run: adviseCheckCommand},
	}
}

func main() {
	os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr))
}

func realMain(args []string, stdout, stderr io.Writer) int {
	return cli.Exec(config, args, stdout, stderr)
}

// selfPath finds this program, to start benchmark runs and node
// processes: config.Executable when a test sets it to the built binary.
func selfPath() (string, error) {
	if config.Executable != nil {
		return config.Executable()
	}
	return os.Executable()
}

// checkRun checks a `tsys run` command line without running it, as any
// program's user does: run --dry-run, here in this process. Its error is
// what the run would exit with, the line Exec writes last that names the
// command (before it, stderr may hold the run's warnings, and after a
// flag error its usage).
func checkRun(args []string) error {
	var stderr bytes.Buffer
	if cli.Exec(config, append(append([]string{"run"}, args...), "--dry-run"), io.Discard, &stderr) == 0 {
		return nil
	}
	out := strings.TrimSpace(stderr.String())
	if i := strings.LastIndex("\n"+out, "\n"+config.Name+": "); i >= 0 {
		out = out[i+len(config.Name+": "):]
	}
	return errors.New(out)
}
