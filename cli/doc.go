// Package cli is the command line of a tsys program: any binary whose
// main calls Main runs its own registered tasks as jobs, on one machine or
// as a node of a cluster, with the verbs and flags of the tsys command
// (Example_program):
//
//	// Sum adds i over a range; the runtime splits it.
//	var Sum = tsys.RegisterFold("mysum.sum",
//		func() int64 { return 0 },
//		func(c *tsys.Ctx, _ struct{}, lo, hi int, s int64) int64 {
//			for i := lo; i < hi; i++ {
//				s += int64(i)
//			}
//			return s
//		},
//		func(a, b int64) int64 { return a + b })
//
//	// SumBelow is the job's root: Sum over [0, n).
//	var SumBelow = tsys.Register("mysum.below", func(c *tsys.Ctx, n int) int64 {
//		return Sum.Call(c, struct{}{}, 0, n)
//	})
//
//	var mysum = cli.Config{Name: "mysum", Programs: []cli.Program{{
//		Name:    "sum",
//		Summary: "sum i for i below N (-n N)",
//		Options: func() cli.Options { return new(sumOptions) },
//	}}}
//
//	// sumOptions are one run's options, bound to its flags.
//	type sumOptions struct{ n int }
//
//	func (o *sumOptions) Flags(fs *flag.FlagSet) { fs.IntVar(&o.n, "n", 100_000_000, "terms") }
//
//	func (o *sumOptions) Job() (cli.Job, error) {
//		return cli.TaskJob(SumBelow, o.n, map[string]any{"n": o.n}), nil
//	}
//
//	func main() { cli.Main(mysum) }
//
// gives
//
//	mysum run sum -n 1000000 [--workers W] [--nodes N] [--join HOST:PORT] [--json] ...
//	mysum node [--bind HOST:PORT] [--join HOST:PORT,...] [--share POLICY] [--http HOST:PORT] [--key-file F]
//	mysum drain ADDR | mysum jobs ADDR | mysum token --key-file F | mysum version
//
// A run asks its Program for fresh Options, defines their flags, parses
// the command line into them and has them make the Job, so two runs of
// one Config (tests in parallel) share nothing. Main is a program's one
// entry point and Exec, Main without the exit, its tests'; a verb of the
// program's own is a Command (Config.Commands), which parses its flags
// with NewFlagSet and ParseFlags and reports a mistake with Usagef.
//
// A node serves the tasks its binary registered, so every node of a
// cluster runs the same binary: a job's root tells each node the tasks
// that may cross to it, their types and its build, and a node that lacks
// one, gives one other types, or runs another build refuses the job at
// once, naming the tasks or both builds, rather than failing at the first
// loan or computing with another body; the job runs on without it, and
// its root warns. --accept-builds, on run or node, has a node of another
// build serve anyway (never one of other types), for builds the operator
// knows compute alike.
// --nodes N starts N-1 more processes of the program's own binary
// (Config.Executable) as nodes on loopback.
//
// A program that also wants `advise`, which calibrates on this machine
// and recommends how many nodes to run the program on, which scheduler,
// and its grain (the values of the flag its Program.Grain names, or,
// without one, its inlining threshold), adds advise.Command(cfg) to its
// Commands: the verb links the simulator, which a program that only runs
// its jobs is better off without.
//
// Started one process a rank by a launcher, a program needs no address:
// under SLURM's srun (srun -N 3 -n 3 mysum run sum), mpirun, a Kubernetes
// Indexed Job, or anything that sets TSYS_RANK, TSYS_SIZE and TSYS_ROOT,
// rank 0 roots the job and prints its result, the other ranks serve it,
// and every rank exits with the job's status; under srun, mysum node
// starts nodes that mysum run PROGRAM --join slurm finds. Rank 0's port
// is derived from the job, and the cluster key from the job and a secret
// of the user's (docs/CLI.md, "Launchers"; deploy/README.md).
//
// Exit codes: 0 success; 1 the job failed or its Verifier found a wrong
// answer; 2 bad usage (an unknown verb, program, flag or value; a flag
// the rest of the command line makes do nothing, such as --serial with
// --nodes; an address or key the network shows to be wrong, such as a
// --join seed that is a node's --http address), whose message says what
// to write. docs/CLI.md lists them.
//
// The tsys command (cmd/tsys) is this package's first user: its Config
// runs the apps of package apps and adds the laboratory's verbs (bench,
// sim, advise, advise-check).
package cli
