// Package cliflags is what the verbs of a tsys program share about their
// flags, whether the verb lives in package cli (run) or in the lab
// (advise, which a program plugs in through cli.Config.Commands): one
// spelling of a flag's help and one way to merge two sets, so that every
// verb's -h reads alike; and one way from a program's options, bound to a
// flag set, to its job, with the --inline a run of it gets by default
// (program.go), so that advise reads a program as run does. It is
// internal so that cli need not export these for the lab's sake, and it
// imports nothing of cli, which imports it.
package cliflags

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"regexp"
)

// IsHelp reports whether arg asks for help the way package flag
// understands it.
func IsHelp(arg string) bool {
	switch arg {
	case "-h", "--h", "-help", "--help":
		return true
	}
	return false
}

// Merge defines src's flags on dst, sharing their values, so that a
// program's flags and a verb's own can come in any order on one command
// line.
func Merge(dst, src *flag.FlagSet) {
	src.VisitAll(func(f *flag.Flag) {
		dst.Var(f.Value, f.Name, f.Usage)
		dst.Lookup(f.Name).DefValue = f.DefValue
	})
}

// longFlag matches the start of a flag's line in PrintDefaults' output when
// its name is longer than a letter.
var longFlag = regexp.MustCompile(`(?m)^  -([^\s-][^\s]+)`)

// Write prints fs's flags as package flag does, but with the long names
// as --name, which is how the README and the error messages spell them
// (package flag takes either).
func Write(w io.Writer, fs *flag.FlagSet) {
	var b bytes.Buffer
	out := fs.Output()
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(out) // a flag set's errors still go where they went
	w.Write(longFlag.ReplaceAll(b.Bytes(), []byte("  --$1")))
}

// SetUsage makes fs's -h print the verb's synopsis ("tsys node
// [flags]"), what it does when about is not empty, and its flags as
// Write spells them: the one help format of every verb.
func SetUsage(fs *flag.FlagSet, synopsis, about string) {
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "usage: %s\n", synopsis)
		if about != "" {
			fmt.Fprintf(w, "\n%s\n", about)
		}
		fmt.Fprint(w, "\nflags:\n")
		Write(w, fs)
	}
}
