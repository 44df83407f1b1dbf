// Package methodcount reads a package's Go source for the tests that
// hold the engine's types small: the style rule of one concern per type,
// which a type with too many methods, or with methods it has by
// embedding and never declares, has outgrown. Each package's test keeps
// its own bound and its own list of the types it expects; this package
// only reads, so that the three tests (internal/sched, internal/cluster,
// internal/fishing) read the source one way.
//
// It is a test helper: only _test.go files import it (internal/layering).
package methodcount
