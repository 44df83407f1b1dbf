package clitest

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tsys-go/tsys/cli"
)

// Exec runs a program's command line in the test's own process, as its
// users' tests would: cli.Exec with the program's Config. It returns the
// exit code, the --json report when the output is one (nil otherwise),
// and what went to stderr.
func Exec(t testing.TB, config cli.Config, args ...string) (code int, report map[string]any, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = cli.Exec(config, args, &out, &errb)
	if out.Len() > 0 && strings.HasPrefix(out.String(), "{") {
		if err := json.Unmarshal(out.Bytes(), &report); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out.String())
		}
	}
	return code, report, errb.String()
}
