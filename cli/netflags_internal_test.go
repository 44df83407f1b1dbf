package cli

import (
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/tsys-go/tsys/internal/cluster"
)

// TestAcceptBuildsFlag: --accept-builds reaches the node's configuration,
// off unless given, and its help says what it overrides and what not.
func TestAcceptBuildsFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{{nil, false}, {[]string{"--accept-builds"}, true}, {[]string{"--accept-builds=false"}, false}} {
		fs := flag.NewFlagSet("node", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var f netFlags
		f.register(fs, "127.0.0.1:0")
		if err := fs.Parse(c.args); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		var cfg cluster.Config
		f.apply(&cfg)
		if cfg.AcceptBuilds != c.want {
			t.Errorf("%v: AcceptBuilds %v, want %v", c.args, cfg.AcceptBuilds, c.want)
		}
		usage := fs.Lookup("accept-builds").Usage
		for _, want := range []string{"another build", "types differ"} {
			if !strings.Contains(usage, want) {
				t.Errorf("the flag's help %q does not say %q", usage, want)
			}
		}
	}
}
