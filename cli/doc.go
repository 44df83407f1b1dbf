// Package cli is the command line of a tsys program: any binary whose
// main calls Main runs its own registered tasks as jobs, on one machine or
// as a node of a cluster, with the verbs and flags of the tsys command.
//
//	func main() {
//		cli.Main(cli.Config{Programs: []cli.Program{{
//			Name:    "sum",
//			Summary: "sum f(i) for i below N (-n N)",
//			Flags: func(fs *flag.FlagSet) func() (cli.Job, error) {
//				n := fs.Int64("n", 100_000_000, "terms")
//				return func() (cli.Job, error) {
//					return cli.TaskJob(Sum, Span{0, *n, 1 << 14}, map[string]any{"n": *n}), nil
//				}
//			},
//		}}})
//	}
//
// gives
//
//	prog run sum -n 1000000 [--workers W] [--nodes N] [--join HOST:PORT] [--json] ...
//	prog advise sum -n 1000000 [--nodes 1,2,4,...] [--workers W] [--json]
//	prog node [--bind HOST:PORT] [--join HOST:PORT,...] [--share POLICY] [--http HOST:PORT] [--key-file F]
//	prog drain ADDR | prog jobs ADDR | prog token --key-file F | prog version
//
// A node serves the tasks its binary registered, so every node of a
// cluster runs the same binary: a job's root tells each node the tasks
// that may cross to it, and a node that lacks one refuses the job at once,
// naming the tasks it lacks and both binaries, rather than failing at the
// first loan; the job runs on without it, and its root warns.
// --nodes N starts N-1 more processes of the program's own binary
// (Config.Executable) as nodes on loopback.
//
// advise calibrates on this machine and recommends how many nodes to run
// the program on, which scheduler, and its grain: the values of the flag
// its Program.Grain names, or, without one, its inlining threshold
// (package advise says how).
//
// Exit codes: 0 success; 1 the job failed or its Verifier found a wrong
// answer; 2 bad usage (an unknown verb, program, flag or value), whose
// message says what to write.
//
// The tsys command (cmd/tsys) is this package's first user: its Config
// runs the apps of package apps and adds the laboratory's verbs (bench,
// sim).
package cli
