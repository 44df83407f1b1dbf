// Package jobid is how a person reads a cluster job's id: one spelling,
// hexadecimal, in every log line, error message and table (tsys jobs,
// the dashboard, a snapshot's "job"), so that one job can be followed
// from line to line and from node to node. Log lines take an ID as it is
// ("job", jobid.ID(m.Job)): slog spells it through LogValue, which a
// plain uint64 would print in decimal.
package jobid
