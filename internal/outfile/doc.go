// Package outfile checks, before a long run, that its output files can be
// written, without touching what they hold: a run that fails its later
// checks, or is cancelled, leaves an existing file as it was.
package outfile
