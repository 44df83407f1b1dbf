package main

import (
	"flag"
	"strings"

	"github.com/tsys-go/tsys/cli"
)

// parseFlagsOnly parses the command line of a lab verb that takes flags
// and nothing else: an argument after the flags is bad usage, named with
// the verb (the last word of the flag set's name, "tsys bench").
func parseFlagsOnly(fs *flag.FlagSet, args []string) error {
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("%s: unexpected argument %q: it takes flags only (%s --help lists them)", fs.Name()[strings.LastIndex(fs.Name(), " ")+1:], fs.Arg(0), fs.Name())
	}
	return nil
}

// flagGiven reports whether the command line set the flag name, whatever
// its value: a default is no choice.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}
