package cli_test

import (
	"bytes"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/tsys-go/tsys/cli"
	"github.com/tsys-go/tsys/tsys"
)

func okOptions() cli.Options { return new(doubleOptions) }

func okRun([]string, io.Writer, io.Writer) error { return nil }

// TestConfigMistakes: a Config the command line cannot serve is refused
// with exit 2 and a message that names the mistake, before any verb runs.
func TestConfigMistakes(t *testing.T) {
	for _, c := range []struct {
		cfg  cli.Config
		want string
	}{
		{cli.Config{Programs: []cli.Program{{Summary: "x", Options: okOptions}}}, `a program ("x") has no Name`},
		{cli.Config{Programs: []cli.Program{{Name: "two words", Options: okOptions}}}, `program name "two words" is not one word`},
		{cli.Config{Programs: []cli.Program{{Name: "-x", Options: okOptions}}}, `program name "-x" is not one word`},
		{cli.Config{Programs: []cli.Program{{Name: "p"}}}, `program "p" has no Options`},
		{cli.Config{Programs: []cli.Program{{Name: "p", Options: okOptions}, {Name: "p", Options: okOptions}}}, `two programs are named "p"`},
		{cli.Config{Programs: []cli.Program{{Name: "p", Options: okOptions, Grain: &cli.Grain{Values: []string{"1"}}}}}, `program "p" has a Grain without a Flag or Values`},
		{cli.Config{Programs: []cli.Program{{Name: "p", Options: okOptions, Grain: &cli.Grain{Flag: "leaf"}}}}, `program "p" has a Grain without a Flag or Values`},
		{cli.Config{Commands: []cli.Command{{Name: "run", Run: okRun}}}, `command "run" has the name of a verb every program has`},
		{cli.Config{Commands: []cli.Command{{Summary: "s", Run: okRun}}}, `a command ("s") has no Name`},
		{cli.Config{Commands: []cli.Command{{Name: "node", Run: okRun}}}, `command "node" has the name of a verb every program has`},
		{cli.Config{Commands: []cli.Command{{Name: "--version", Run: okRun}}}, `command "--version" has the name of a verb`},
		{cli.Config{Commands: []cli.Command{{Name: "c"}}}, `command "c" has no Run function`},
		{cli.Config{Commands: []cli.Command{{Name: "c", Run: okRun}, {Name: "c", Run: okRun}}}, `two commands are named "c"`},
	} {
		var errb bytes.Buffer
		code := cli.Exec(c.cfg, []string{"version"}, io.Discard, &errb)
		if code != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%+v: exit %d, %q; want 2 and %q", c.cfg, code, errb.String(), c.want)
		}
	}
}

// TestCommandsOfTheProgram: a program's own verb runs with its arguments,
// shows in the usage aligned with the others, and its usage error exits 2.
func TestCommandsOfTheProgram(t *testing.T) {
	var got []string
	cfg := cli.Config{Name: "prog", Commands: []cli.Command{{
		Name: "greet", Usage: "NAME", Summary: "say hello",
		Run: func(args []string, stdout, _ io.Writer) error {
			if len(args) != 1 {
				return cli.Usagef("greet: want a NAME")
			}
			got = args
			return nil
		},
	}}}
	if code := cli.Exec(cfg, []string{"greet", "you"}, io.Discard, io.Discard); code != 0 || len(got) != 1 || got[0] != "you" {
		t.Errorf("greet you: exit %d, args %v", code, got)
	}
	var errb bytes.Buffer
	if code := cli.Exec(cfg, []string{"greet"}, io.Discard, &errb); code != 2 || errb.String() != "prog: greet: want a NAME\n" {
		t.Errorf("greet: exit %d, %q", code, errb.String())
	}
	var out bytes.Buffer
	cli.Exec(cfg, []string{"help"}, &out, io.Discard)
	usage := out.String()
	greet := strings.Index(usage, "prog greet NAME")
	node := strings.Index(usage, "prog node [flags]")
	if greet < 0 || node < 0 {
		t.Fatalf("the usage lacks greet or node:\n%s", usage)
	}
	lineOf := func(at int) string { l, _, _ := strings.Cut(usage[at:], "\n"); return l }
	if strings.Index(lineOf(greet), "say hello") != strings.Index(lineOf(node), "serve this program") {
		t.Errorf("the program's verb is not aligned with the others:\n%s", usage)
	}
}

// TestSerialNeedsASerialJob: --serial of a program whose Job has no
// serial version is bad usage, saying so.
func TestSerialNeedsASerialJob(t *testing.T) {
	var errb bytes.Buffer
	code := cli.Exec(config, []string{"run", "double", "--serial"}, io.Discard, &errb)
	if code != 2 || !strings.Contains(errb.String(), "has no serial version") {
		t.Errorf("exit %d, %q", code, errb.String())
	}
}

var forever = tsys.Register("cliexample.forever", func(c *tsys.Ctx, _ int) int {
	<-c.Context().Done() // runs until its job ends
	return 0
})

// foreverOptions make the job of forever, which has no flags.
type foreverOptions struct{}

func (foreverOptions) Flags(*flag.FlagSet)   {}
func (foreverOptions) Job() (cli.Job, error) { return cli.TaskJob(forever, 0, nil), nil }

// TestTimeoutEndsAJob: --timeout ends a job that would run for ever,
// failed, saying why and what it was waiting for; a negative one is bad
// usage.
func TestTimeoutEndsAJob(t *testing.T) {
	cfg := cli.Config{Name: "prog", Programs: []cli.Program{{Name: "forever", Options: func() cli.Options { return foreverOptions{} }}}}
	var errb bytes.Buffer
	code := cli.Exec(cfg, []string{"run", "forever", "--timeout", "50ms"}, io.Discard, &errb)
	if code != 1 || !strings.Contains(errb.String(), "the job did not finish within --timeout 50ms") ||
		!strings.Contains(errb.String(), "it was waiting for: ") || !strings.Contains(errb.String(), "workers busy") {
		t.Errorf("exit %d, %q; want 1, the reason and what it waited for", code, errb.String())
	}
	errb.Reset()
	if code := cli.Exec(cfg, []string{"run", "forever", "--timeout", "-1s"}, io.Discard, &errb); code != 2 || !strings.Contains(errb.String(), "--timeout -1s") {
		t.Errorf("a negative timeout: exit %d, %q", code, errb.String())
	}
}
