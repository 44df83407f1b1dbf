// Package loopsplit lets the laboratory choose how a job's loops cut the
// pieces they expose to thieves, without a public option: tsys's loops
// halve what is left of their range (the default, and the only way a
// program gets), and the lab compares that with Cesar et al.'s dynamic
// adjusting factoring (apps/rt's --split factoring; bench/README.md,
// "Loops"). The choice rides in the job's context, which a loop reads
// once as it begins; the pieces it lends carry it on, to other nodes too.
package loopsplit

import "context"

type factoringKey struct{}

// WithFactoring returns ctx, under which the loops of a job run with it
// cut their pieces by factoring.
func WithFactoring(ctx context.Context) context.Context {
	return context.WithValue(ctx, factoringKey{}, true)
}

// Factoring reports whether ctx asks for factoring.
func Factoring(ctx context.Context) bool { return ctx.Value(factoringKey{}) != nil }
