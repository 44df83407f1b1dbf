// Command tsysclone writes the fast clones of a package's task functions,
// for go generate:
//
//	//go:generate go run github.com/tsys-go/tsys/cmd/tsysclone
//
// It reads the package in the current directory (or in each directory
// named on the command line), finds every task registered by its clone's
// name, tsys.Register(name, fooClone), and every function foo taking a
// *tsys.Ctx whose clone the package calls, fooClone, and writes fooClone,
// generated from foo, to tsys_clone.go. In a clone, each closure form
// (tsys.Both, Pair, For, Fold) the generator can prove safe runs its
// closures' bodies as plain code while enough tasks are ready: the cutoff
// a program would otherwise write by hand. With -v it says, naming the
// line, which forms it rewrote and why it left each other one as written.
// Package internal/clonegen says what a clone is and what it refuses.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/tsys-go/tsys/internal/clonegen"
)

func main() {
	check := flag.Bool("check", false, "write nothing; fail if a directory's "+clonegen.FileName+" is not what tsysclone would write")
	verbose := flag.Bool("v", false, "say which closure forms were rewritten, and why each other one was left as written, naming the line")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: tsysclone [-check] [-v] [dir ...]\n\nWrites to %s the fast clones of the task functions a package registers by their clone's name (tsys.Register(name, fooClone)), and the clones of the functions taking a *tsys.Ctx that it calls by their clone's name (fooClone), with the cutoff of their closure forms written.\n\n", clonegen.FileName)
		flag.PrintDefaults()
	}
	flag.Parse()
	dirs := flag.Args()
	if len(dirs) == 0 {
		dirs = []string{"."}
	}
	failed := false
	for _, dir := range dirs {
		if err := run(dir, *check, verboseTo(*verbose)); err != nil {
			slog.Error("tsysclone", "dir", dir, "err", err)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

// verboseTo is where -v's notes go: standard error, or nowhere.
func verboseTo(v bool) io.Writer {
	if v {
		return os.Stderr
	}
	return io.Discard
}

func run(dir string, check bool, notes io.Writer) error {
	src, ns, err := clonegen.Generate(dir)
	for _, n := range ns {
		fmt.Fprintln(notes, n)
	}
	if err != nil {
		return err
	}
	path := filepath.Join(dir, clonegen.FileName)
	if check {
		old, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("%w: run go generate in %s", err, dir)
		}
		if !bytes.Equal(old, src) {
			return fmt.Errorf("%s is stale: run go generate in %s", path, dir)
		}
		return nil
	}
	return os.WriteFile(path, src, 0o644)
}
