// Command apicheck fails when the public API of tsys changed without a
// line in CHANGELOG.md that names the change. test.sh runs it as a phase;
// CHANGELOG.md's header states the rule it applies.
//
//	go run ./internal/apicheck [-repo DIR]
//
// It takes the commit of the newest release CHANGELOG.md names, extracts
// that commit's sources with git archive, and runs golang.org/x/exp's
// apidiff (the pinned version below) on each public package: the API at
// the release against the working tree. Every added, changed or removed
// name must be named in a bullet of the Unreleased section; an
// incompatible one needs the bullet to say "removed" (for a name that was
// deprecated at the release) or "breaking".
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the exit: 0 the API and CHANGELOG.md agree, 1 they
// do not (or the check could not run), 2 bad usage.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("apicheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	repo := fs.String("repo", ".", "the repository's root: go.mod, CHANGELOG.md and the git history")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "apicheck: takes no arguments, got %q; usage: go run ./internal/apicheck [-repo DIR]\n", fs.Args())
		return 2
	}
	cfg := config{Repo: *repo, Packages: publicPackages, Apidiff: apidiffModule}
	res, err := check(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "apicheck: %v\n", err)
		return 1
	}
	return report(res, stdout, stderr)
}
