// Command tsysclone writes the fast clones of a package's task functions,
// for go generate:
//
//	//go:generate go run github.com/tsys-go/tsys/cmd/tsysclone
//
// It reads the package in the current directory (or in each directory
// named on the command line), finds every task registered by its clone's
// name, tsys.Register(name, fooClone), and writes fooClone, generated from
// foo, to tsys_clone.go. Package internal/clonegen says what a clone is and
// what it refuses to clone.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/tsys-go/tsys/internal/clonegen"
)

func main() {
	check := flag.Bool("check", false, "write nothing; fail if a directory's "+clonegen.FileName+" is not what tsysclone would write")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: tsysclone [-check] [dir ...]\n\nWrites the fast clones of the task functions a package registers by their clone's name (tsys.Register(name, fooClone)) to %s.\n\n", clonegen.FileName)
		flag.PrintDefaults()
	}
	flag.Parse()
	dirs := flag.Args()
	if len(dirs) == 0 {
		dirs = []string{"."}
	}
	failed := false
	for _, dir := range dirs {
		if err := run(dir, *check); err != nil {
			slog.Error("tsysclone", "dir", dir, "err", err)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

func run(dir string, check bool) error {
	src, err := clonegen.Generate(dir)
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
