// Package layering holds the module's packages to their layers
// (docs/LAYERING.md): the library (tsys, cli, inline and the internal
// packages they rest on: the facade above the engine above the runtime
// core) below, the laboratory (the apps, the simulator, the advisor, the
// benchmarks, the commands) above it, never the other way round. Rules
// is the table of what may not import what; Check reads the import graph
// `go list -deps -json` prints and names, for each package that breaks a
// rule, the chain of imports that does and what to do instead; InitHooks
// finds the way up that imports do not show, an init function that sets
// a hook in another package. Its tests run the checks over the module,
// and also hold a tsys+cli program (testdata/minimal and every example)
// to the library alone: no app, simulator, advisor or calibration
// linked, and no task registered but its own.
package layering
