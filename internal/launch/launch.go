package launch

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// Launch is what a launcher told this process of the job it is a rank of.
type Launch struct {
	// Launcher names where it came from: "SLURM", "Open MPI", "MPICH
	// (PMI)", "Kubernetes" or "TSYS_RANK".
	Launcher string
	// Rank is this process's place in the job, 0 to Size-1: rank 0 roots
	// it (or, for the long-lived nodes, is their seed).
	Rank, Size int
	// Host is this process's host as the launcher names it
	// (SLURMD_NODENAME); "" when the launcher does not say.
	Host string
	// RootHost and RootPort are where rank 0's gossip listens; RootHost
	// is "" where every rank runs on this host (OneHost) and no one named
	// another. With RootFile instead of RootHost, rank 0 writes its
	// address into that file on a path every rank shares, and the others
	// read it there.
	RootHost string
	RootPort int
	RootFile string
	// OneHost: every rank runs on this process's host.
	OneHost bool
	// Job names the job (and step) among the user's others: the derived
	// key (Key) and the derived port differ for each.
	Job string
	// Workers is how many CPUs the launcher gave this rank
	// (SLURM_CPUS_PER_TASK, or its share of the CPUs SLURM gave the job on
	// its node); 0 when it does not say.
	Workers int
	// Client: the process is no rank but a job's root that joins the
	// long-lived nodes of a launch (run --join slurm, JoinSlurm).
	Client bool
	// NeedsKeyFile says why the key must come from a file the user gives
	// (--key-file), "" when one derived from the user's secret serves:
	// where the ranks share no home directory (Kubernetes).
	NeedsKeyFile string
}

// Request is what Detect reads.
type Request struct {
	// Getenv reads a variable, as os.LookupEnv does.
	Getenv func(string) (string, bool)
	// Launcher is --launcher: "auto" (or "") finds the launcher from the
	// variables; slurm, mpi, kubernetes or env insists on one; none is
	// no launcher.
	Launcher string
	// Root is --launch-root: HOST, HOST:PORT, :PORT or, with a '/', a file on a
	// shared path; "" reads TSYS_ROOT, else the launcher's own.
	Root string
	// Nodes: the process is a long-lived node (tsys node), not a job's
	// rank: under SLURM its port is the job's, whatever the step, so
	// that `run --join slurm` finds it (JoinSlurm).
	Nodes bool
	// Program is the program's name ("tsys") and Command how the user
	// started the process ("tsys run uts"), which the fixes of an error
	// spell out.
	Program, Command string
}

// Launchers are --launcher's values.
var Launchers = []string{"auto", "slurm", "mpi", "kubernetes", "env", "none"}

// Detect reads the launcher's variables. It returns nil and no error when
// no launcher started the process (or Launcher is none), and an error
// that says what to set or how to start the process when the variables
// are missing, malformed or contradict each other, or when a multi-node
// SLURM allocation runs the process outside srun.
func Detect(r Request) (*Launch, error) {
	env := lookup(r.Getenv)
	if r.Root == "" {
		r.Root, _ = env.get("TSYS_ROOT")
	}
	root := r.Root
	var (
		l   *Launch
		err error
	)
	switch r.Launcher {
	case "", "auto":
		l, err = detectAuto(env, r)
	case "slurm":
		if !env.has("SLURM_STEP_ID") && !env.has("SLURM_JOB_ID") {
			return nil, fmt.Errorf("--launcher slurm: SLURM_JOB_ID is not set: this process does not run in a SLURM job; start it with srun (srun -N 3 %s)", r.Command)
		}
		l, err = slurm(env, r)
	case "mpi":
		switch {
		case env.has("OMPI_COMM_WORLD_RANK"):
			l, err = openMPI(env)
		case env.has("PMI_RANK"):
			l, err = pmi(env)
		default:
			return nil, fmt.Errorf("--launcher mpi: neither OMPI_COMM_WORLD_RANK (Open MPI) nor PMI_RANK (MPICH) is set: start the program with mpirun -np N")
		}
	case "kubernetes":
		if !env.has("JOB_COMPLETION_INDEX") {
			return nil, fmt.Errorf("--launcher kubernetes: JOB_COMPLETION_INDEX is not set: run the program in a Job with completionMode: Indexed (deploy/kubernetes/indexed-job-uts.yaml)")
		}
		l, err = kubernetes(env)
	case "env":
		l, err = plain(env)
	case "none":
		return nil, nil
	default:
		return nil, fmt.Errorf("--launcher %q: want one of %s", r.Launcher, strings.Join(Launchers, ", "))
	}
	if err != nil || l == nil {
		return nil, err
	}
	if err := l.setRoot(root); err != nil {
		return nil, err
	}
	if l.RootHost == "" && l.RootFile == "" && l.Size > 1 && !l.OneHost {
		return nil, fmt.Errorf("%s does not say where rank 0 runs: name its host with --launch-root HOST, or a file on a path every rank shares with --launch-root /shared/dir/tsys.root (rank 0 writes its address there), or set TSYS_ROOT to either", l.Launcher)
	}
	return l, nil
}

// detectAuto finds the launcher from its variables. An MPI launcher's
// come first: mpirun inside a SLURM job starts its ranks in a step of
// its own daemons, whose SLURM_PROCID is not the rank. TSYS_RANK, set by
// hand, comes before them all.
func detectAuto(env lookup, r Request) (*Launch, error) {
	switch {
	case env.has("TSYS_RANK"):
		return plain(env)
	case env.has("OMPI_COMM_WORLD_RANK"):
		return openMPI(env)
	case env.has("SLURM_JOB_ID") || env.has("SLURM_STEP_ID"):
		return slurm(env, r)
	case env.has("PMI_RANK"):
		return pmi(env)
	case env.has("JOB_COMPLETION_INDEX"):
		return kubernetes(env)
	}
	return nil, nil
}

// setRoot applies --launch-root (or TSYS_ROOT): HOST, HOST:PORT, :PORT, or a
// file.
func (l *Launch) setRoot(root string) error {
	switch {
	case root == "":
		return nil
	case strings.Contains(root, "/"):
		l.RootFile, l.RootHost = root, ""
		return nil
	}
	host, port, err := net.SplitHostPort(root)
	if err != nil {
		if strings.Contains(root, ":") && net.ParseIP(root) == nil {
			return fmt.Errorf("--launch-root %q: want HOST, HOST:PORT, :PORT or a file path with a /, e.g. node01:24001", root)
		}
		host, port = root, ""
	}
	if port != "" {
		p, err := strconv.Atoi(port)
		if err != nil || p < 1 || p > 65535 {
			return fmt.Errorf("--launch-root %q: want a port from 1 to 65535", root)
		}
		l.RootPort = p
	}
	if host != "" {
		l.RootHost = host
	}
	return nil
}

// lookup reads variables.
type lookup func(string) (string, bool)

func (e lookup) get(name string) (string, bool) {
	if e == nil {
		return "", false
	}
	v, ok := e(name)
	return strings.TrimSpace(v), ok && strings.TrimSpace(v) != ""
}

func (e lookup) has(name string) bool { _, ok := e.get(name); return ok }

// first is the first of names that is set, and its name.
func (e lookup) first(names ...string) (value, name string) {
	for _, n := range names {
		if v, ok := e.get(n); ok {
			return v, n
		}
	}
	return "", ""
}

// count reads a count variable: a whole number of at least least. It
// says which variable is wrong and what to set.
func (e lookup) count(name string, least int, why string) (int, error) {
	v, ok := e.get(name)
	if !ok {
		return 0, fmt.Errorf("%s is not set: %s", name, why)
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < least {
		return 0, fmt.Errorf("%s=%q: want a whole number of at least %d (%s)", name, v, least, why)
	}
	return n, nil
}

// rankSize reads a rank and a size and checks that the rank is below
// the size.
func (e lookup) rankSize(rank, size, why string) (int, int, error) {
	r, err := e.count(rank, 0, why)
	if err != nil {
		return 0, 0, err
	}
	s, err := e.count(size, 1, why)
	if err != nil {
		return 0, 0, err
	}
	if r >= s {
		return 0, 0, fmt.Errorf("%s=%d is not below %s=%d: ranks run from 0 to the size less one (%s)", rank, r, size, s, why)
	}
	return r, s, nil
}
