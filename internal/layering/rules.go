package layering

import "strings"

// Module is the module's path; the rules name packages relative to it.
const Module = "github.com/tsys-go/tsys"

// A Rule forbids any package that From accepts to link one that To
// accepts, directly or through other packages. Paths are relative to
// Module ("internal/cluster"); a package outside the module keeps its
// full path ("net").
type Rule struct {
	Name string
	From func(path string) bool
	To   func(path string) bool
	// Fix says what to do about a broken rule.
	Fix string
}

// Rules is the layering: which packages may not import which.
var Rules = []Rule{
	{
		Name: "the library imports the lab",
		From: IsLibrary,
		To:   IsLab,
		Fix:  "the library must build without the lab: move what it needs below (into the library or an internal package of it), or have the lab plug in through the library's API (cli.Config.Commands, a parameter)",
	},
	{
		Name: "the simulator links the network",
		From: func(p string) bool { return p == "sim" },
		To: func(p string) bool {
			return p == "net" || p == "internal/cluster" || under(p, "internal/net")
		},
		Fix: "the simulator models the network and must build without it: move the type it needs into a package that does not import the network (as internal/tasktree holds the recorded tree)",
	},
	{
		Name: "a package imports a command",
		From: func(string) bool { return true },
		To:   func(p string) bool { return under(p, "cmd") },
		Fix:  "a command is a main package and the top of the stack: move the code both need into a package the command imports",
	},
	{
		Name: "the runtime imports its facade",
		From: func(p string) bool { return under(p, "internal") && !IsProgramCode(p) },
		To:   func(p string) bool { return p == "tsys" || p == "cli" },
		Fix: "tsys and cli are the facade a program imports, and the runtime's layers sit below them: take the runtime core (internal/runtimecore; a *tsys.Runtime is a *runtimecore.Runtime converted, at no cost) " +
			"and move what cli would share below it (internal/cliflags, internal/cluster), never a hook that the facade sets at init",
	},
	{
		Name: "calibration links the cluster",
		From: func(p string) bool { return under(p, "internal/calibrate") },
		To:   func(p string) bool { return p == "internal/cluster" },
		Fix:  "calibration times the cluster's pieces (the transport, membership, a policy's tick) on their own: move what it reads of the cluster below it (clusterpolicy.DefaultTickEvery)",
	},
	{
		Name: "a package imports a test helper",
		From: func(p string) bool { return !isTestHelper(p) },
		To:   isTestHelper,
		Fix:  "test helpers are for _test.go files only: import the helper from a test, or move what the package needs out of the helper",
	},
}

// IsLab reports whether p belongs to the laboratory: the apps, the
// simulator, the advisor and its calibration, the benchmarks, the
// examples and the commands.
func IsLab(p string) bool {
	for _, root := range []string{"apps", "sim", "advise", "bench", "cmd", "examples", "internal/calibrate", "internal/apicheck"} {
		if under(p, root) {
			return true
		}
	}
	return false
}

// IsLibrary reports whether p is the library: the packages a user's
// program imports (tsys, cli, inline) and every internal package that is
// neither the lab's nor a test helper.
func IsLibrary(p string) bool {
	switch {
	case p == "tsys" || p == "cli" || p == "inline":
		return true
	case under(p, "internal"):
		return !IsLab(p) && !isTestHelper(p) && !under(p, "internal/layering")
	}
	return false
}

// isTestHelper reports whether p is a package only tests may import, or
// a program only tests build (internal/testnode).
func isTestHelper(p string) bool {
	switch p {
	case "internal/proctest", "internal/clitest", "internal/promtest", "internal/stranger", "internal/doccode", "internal/netem", "internal/netnstest", "internal/slurmtest", "internal/methodcount", "internal/testnode":
		return true
	}
	return false
}

// IsProgramCode reports whether p, though under internal/, is code of
// the kind a user writes, and so imports tsys or cli as a program does:
// the node program of the cluster's process tests (internal/testnode),
// the helper that runs a program's command line in a test's process
// (internal/clitest), and the task code the clone generator is tested on
// (internal/clonegen/clonetest). No other internal package may.
func IsProgramCode(p string) bool {
	switch p {
	case "internal/testnode", "internal/clitest", "internal/clonegen/clonetest":
		return true
	}
	return false
}

// under reports whether p is root or a package below it.
func under(p, root string) bool { return p == root || strings.HasPrefix(p, root+"/") }
