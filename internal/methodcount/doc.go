// Package methodcount reads a package's Go source for the tests that
// hold the engine's types small: the style rule of one concern per type,
// which a type with too many methods, or with methods it has by
// embedding and never declares, has outgrown. Read finds each type's
// declared methods and each struct's embedded fields, with positions;
// Over and Unlisted say which break a test's bound or its list of the
// embeds it allows. Each package's test keeps its own bound and its own
// list of the types it expects to find, so that the tests of
// internal/sched, internal/cluster and internal/fishing read the source
// one way and still say what each package holds.
//
// It is a test helper: only _test.go files import it (internal/layering).
package methodcount
