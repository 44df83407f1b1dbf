package cliseam

import "github.com/tsys-go/tsys/inline"

// Inline is the inlining policy of a run that names none, for a program
// whose cli.Program.InlineK is k: load:k, or the default for 0. The lab
// (advise, bench) reads a program's policy as run does, through here.
func Inline(k int) inline.Policy {
	if k > 0 {
		return inline.LoadK(k)
	}
	return inline.Default()
}
