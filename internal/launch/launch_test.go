package launch

import (
	"strings"
	"testing"
)

// srunEnv is what srun -N 3 -n 3 sets for task rank of job 1234, step 5.
func srunEnv(rank string) map[string]string {
	node := map[string]string{"0": "n01", "1": "n02", "2": "n03"}[rank]
	return map[string]string{
		"SLURM_JOB_ID": "1234", "SLURM_STEP_ID": "5", "SLURM_PROCID": rank, "SLURM_NODEID": rank,
		"SLURM_STEP_NUM_TASKS": "3", "SLURM_NTASKS": "3", "SLURM_STEP_NODELIST": "n[01-03]",
		"SLURM_NODELIST": "n[01-03]", "SLURMD_NODENAME": node, "SLURM_CPUS_ON_NODE": "8",
		"SLURM_STEP_TASKS_PER_NODE": "1(x3)", "SLURM_NNODES": "3",
	}
}

// with is env with some variables changed ("" removes one).
func with(env map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range env {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == "" {
			delete(out, kv[i])
		} else {
			out[kv[i]] = kv[i+1]
		}
	}
	return out
}

func TestDetect(t *testing.T) {
	type want struct {
		launcher   string
		rank, size int
		root       string // RootHost, or "file:PATH"
		port       int
		job        string
		workers    int
		oneHost    bool
	}
	ompi := map[string]string{"OMPI_COMM_WORLD_RANK": "1", "OMPI_COMM_WORLD_SIZE": "3", "OMPI_COMM_WORLD_LOCAL_SIZE": "3", "PMIX_NAMESPACE": "777"}
	batch := map[string]string{"SLURM_JOB_ID": "1234", "SLURM_JOB_NUM_NODES": "3", "SLURM_NNODES": "3", "SLURM_JOB_NODELIST": "n[01-03]", "SLURM_PROCID": "0"}
	for _, c := range []struct {
		name     string
		env      map[string]string
		launcher string
		root     string
		nodes    bool
		want     *want
		err      string // a part of the error; "" for none
	}{
		{name: "no launcher", env: map[string]string{"HOME": "/h"}},
		{name: "srun rank 1", env: srunEnv("1"),
			want: &want{"SLURM", 1, 3, "n01", Port(1234, 1+5%7), "slurm job 1234 step 5", 8, false}},
		{name: "srun rank 0", env: srunEnv("0"),
			want: &want{"SLURM", 0, 3, "n01", 20000 + 1234*8 + 6, "slurm job 1234 step 5", 8, false}},
		{name: "srun nodes", env: srunEnv("2"), nodes: true,
			want: &want{"SLURM", 2, 3, "n01", Port(1234, 0), "slurm job 1234 nodes", 8, false}},
		{name: "srun cpus per task", env: with(srunEnv("1"), "SLURM_CPUS_PER_TASK", "3"),
			want: &want{"SLURM", 1, 3, "n01", Port(1234, 6), "slurm job 1234 step 5", 3, false}},
		{name: "srun two tasks a node", env: with(srunEnv("1"), "SLURM_STEP_TASKS_PER_NODE", "2,1", "SLURM_NODEID", "0", "SLURMD_NODENAME", "n01", "SLURM_STEP_NODELIST", "n[01-02]"),
			want: &want{"SLURM", 1, 3, "n01", Port(1234, 6), "slurm job 1234 step 5", 4, false}},
		{name: "srun one node", env: with(srunEnv("1"), "SLURM_STEP_NODELIST", "n01", "SLURMD_NODENAME", "n01", "SLURM_STEP_TASKS_PER_NODE", "3", "SLURM_NODEID", "0"),
			want: &want{"SLURM", 1, 3, "", Port(1234, 6), "slurm job 1234 step 5", 2, true}},
		{name: "srun root port given", env: srunEnv("1"), root: ":24000",
			want: &want{"SLURM", 1, 3, "n01", 24000, "slurm job 1234 step 5", 8, false}},
		{name: "TSYS_ROOT over srun's", env: with(srunEnv("1"), "TSYS_ROOT", "10.0.0.9:25000"),
			want: &want{"SLURM", 1, 3, "10.0.0.9", 25000, "slurm job 1234 step 5", 8, false}},
		{name: "srun one task", env: with(srunEnv("0"), "SLURM_STEP_NUM_TASKS", "1", "SLURM_STEP_NODELIST", "n01"),
			want: &want{"SLURM", 0, 1, "", Port(1234, 6), "slurm job 1234 step 5", 8, true}},
		{name: "batch of one node", env: with(batch, "SLURM_JOB_NUM_NODES", "1", "SLURM_NNODES", "1")},
		{name: "batch of three nodes, outside srun", env: batch, err: "outside srun"},
		{name: "salloc of three tasks, outside srun", env: with(batch, "SLURM_JOB_NUM_NODES", "1", "SLURM_NNODES", "1", "SLURM_NTASKS", "3"), err: "srun tsys run uts"},
		{name: "outside srun, --launcher none", env: batch, launcher: "none"},
		{name: "srun, bad rank", env: with(srunEnv("1"), "SLURM_PROCID", "x"), err: `SLURM_PROCID="x"`},
		{name: "srun, rank past size", env: with(srunEnv("1"), "SLURM_PROCID", "3"), err: "is not below"},
		{name: "srun, no rank", env: with(srunEnv("1"), "SLURM_PROCID", ""), err: "SLURM_PROCID is not set"},
		{name: "srun, bad node list", env: with(srunEnv("1"), "SLURM_STEP_NODELIST", "n[3-1]"), err: "SLURM_STEP_NODELIST"},
		{name: "srun, node list past the bound", env: with(srunEnv("1"), "SLURM_STEP_NODELIST", "n[1-99999999]"), err: "start the program with srun"},
		{name: "srun, no node name", env: with(srunEnv("1"), "SLURMD_NODENAME", ""), err: "SLURMD_NODENAME"},
		{name: "srun, rank 0 off the first node", env: with(srunEnv("0"), "SLURMD_NODENAME", "n03"), err: "not on the step's first node"},
		{name: "srun, rank 0 off the first node, named", env: with(srunEnv("0"), "SLURMD_NODENAME", "n03"), root: "n03",
			want: &want{"SLURM", 0, 3, "n03", Port(1234, 6), "slurm job 1234 step 5", 8, false}},
		{name: "srun, bad job", env: with(srunEnv("1"), "SLURM_JOB_ID", "abc"), err: "SLURM_JOB_ID"},
		{name: "open mpi, one host", env: ompi,
			want: &want{"Open MPI", 1, 3, "", Port(hashJob("mpi 777"), 1), "mpi 777", 0, true}},
		{name: "open mpi inside a SLURM step", env: with(srunEnv("0"), "OMPI_COMM_WORLD_RANK", "2", "OMPI_COMM_WORLD_SIZE", "3", "OMPI_COMM_WORLD_LOCAL_SIZE", "3", "PMIX_NAMESPACE", "777"),
			want: &want{"Open MPI", 2, 3, "", Port(hashJob("mpi 777"), 1), "mpi 777", 0, true}},
		{name: "open mpi across hosts, no root", env: with(ompi, "OMPI_COMM_WORLD_LOCAL_SIZE", "1"), err: "--launch-root"},
		{name: "open mpi across hosts, root file", env: with(ompi, "OMPI_COMM_WORLD_LOCAL_SIZE", "1"), root: "/shared/tsys.root",
			want: &want{"Open MPI", 1, 3, "file:/shared/tsys.root", Port(hashJob("mpi 777"), 1), "mpi 777", 0, false}},
		{name: "open mpi, no size", env: with(ompi, "OMPI_COMM_WORLD_SIZE", ""), err: "OMPI_COMM_WORLD_SIZE is not set"},
		{name: "mpich", env: map[string]string{"PMI_RANK": "0", "PMI_SIZE": "2", "MPI_LOCALNRANKS": "2"},
			want: &want{"MPICH (PMI)", 0, 2, "", Port(hashJob("mpi "), 1), "mpi ", 0, true}},
		{name: "mpich, bad size", env: map[string]string{"PMI_RANK": "0", "PMI_SIZE": "0"}, err: `PMI_SIZE="0"`},
		{name: "kubernetes", env: map[string]string{"JOB_COMPLETION_INDEX": "2", "TSYS_SIZE": "3", "TSYS_ROOT": "uts-0.uts", "HOSTNAME": "uts-2"},
			want: &want{"Kubernetes", 2, 3, "uts-0.uts", 7946, "kubernetes uts-2", 0, false}},
		{name: "kubernetes, no size", env: map[string]string{"JOB_COMPLETION_INDEX": "2", "TSYS_ROOT": "uts-0.uts"}, err: "TSYS_SIZE is not set"},
		{name: "kubernetes, no root", env: map[string]string{"JOB_COMPLETION_INDEX": "2", "TSYS_SIZE": "3"}, err: "TSYS_ROOT is not set"},
		{name: "plain", env: map[string]string{"TSYS_RANK": "1", "TSYS_SIZE": "2", "TSYS_ROOT": "host9:26000"},
			want: &want{"TSYS_RANK", 1, 2, "host9", 26000, "env host9:26000", 0, false}},
		{name: "plain over mpi", env: with(ompi, "TSYS_RANK", "0", "TSYS_SIZE", "1"),
			want: &want{"TSYS_RANK", 0, 1, "", Port(hashJob("env "), 1), "env ", 0, false}},
		{name: "plain, no root", env: map[string]string{"TSYS_RANK": "1", "TSYS_SIZE": "2"}, err: "TSYS_ROOT is not set"},
		{name: "plain, no size", env: map[string]string{"TSYS_RANK": "1"}, err: "TSYS_SIZE is not set"},
		{name: "plain, bad root", env: map[string]string{"TSYS_RANK": "1", "TSYS_SIZE": "2", "TSYS_ROOT": "h:99999"}, err: "port from 1 to 65535"},
		{name: "--launcher slurm outside SLURM", env: ompi, launcher: "slurm", err: "SLURM_JOB_ID is not set"},
		{name: "--launcher mpi without mpirun", env: srunEnv("1"), launcher: "mpi", err: "mpirun"},
		{name: "--launcher kubernetes outside", env: nil, launcher: "kubernetes", err: "Indexed"},
		{name: "--launcher env", env: nil, launcher: "env", err: "TSYS_RANK is not set"},
		{name: "--launcher bogus", env: nil, launcher: "pbs", err: "want one of"},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := c.env
			l, err := Detect(Request{Getenv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
				Launcher: c.launcher, Root: c.root, Nodes: c.nodes, Program: "tsys", Command: "tsys run uts"})
			switch {
			case c.err != "":
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("got %+v, %v; want an error with %q", l, err, c.err)
				}
				return
			case err != nil:
				t.Fatal(err)
			case c.want == nil:
				if l != nil {
					t.Fatalf("got %+v, want no launcher", l)
				}
				return
			case l == nil:
				t.Fatalf("no launcher found, want %+v", c.want)
			}
			root := l.RootHost
			if l.RootFile != "" {
				root = "file:" + l.RootFile
			}
			got := want{l.Launcher, l.Rank, l.Size, root, l.RootPort, l.Job, l.Workers, l.OneHost}
			if got != *c.want {
				t.Errorf("got  %+v\nwant %+v", got, *c.want)
			}
		})
	}
}

func TestJoinSlurm(t *testing.T) {
	env := map[string]string{"SLURM_JOB_ID": "99", "SLURM_JOB_NODELIST": "c[3-4]"}
	get := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	c, err := JoinSlurm(get)
	if err != nil || c.RootHost != "c3" || c.RootPort != Port(99, 0) || c.Job != "slurm job 99 nodes" || !c.Client || c.Rank == 0 {
		t.Fatalf("JoinSlurm = %+v, %v", c, err)
	}
	port, job := c.RootPort, c.Job
	// The nodes' own Detect finds the same port and job.
	l, err := Detect(Request{Getenv: func(k string) (string, bool) { v, ok := with(srunEnv("0"), "SLURM_JOB_ID", "99")[k]; return v, ok }, Nodes: true})
	if err != nil || l.RootPort != port || l.Job != job {
		t.Errorf("the nodes listen on %d for %q (%v), --join slurm looks on %d for %q", l.RootPort, l.Job, err, port, job)
	}
	for list, want := range map[string]string{"": "SLURM_JOB_NODELIST is not set", "c[1-99999999]": "run it inside the SLURM job", "c[1-": "SLURM_JOB_NODELIST"} {
		env["SLURM_JOB_NODELIST"] = list
		if c, err := JoinSlurm(get); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("SLURM_JOB_NODELIST=%q: got %+v, %v; want an error with %q", list, c, err, want)
		}
	}
	delete(env, "SLURM_JOB_ID")
	if _, err := JoinSlurm(get); err == nil || !strings.Contains(err.Error(), "SLURM_JOB_ID") {
		t.Errorf("outside a job: %v", err)
	}
}

// TestPortsApart: jobs whose numbers are less than portJobs apart, and
// the steps of a job, listen on different ports within the range.
func TestPortsApart(t *testing.T) {
	seen := map[int]string{}
	for job := uint64(5000); job < 5000+portJobs; job++ {
		for slot := range portSlots {
			p := Port(job, slot)
			if p < PortBase || p >= 32768 {
				t.Fatalf("Port(%d, %d) = %d, outside [%d, 32768)", job, slot, p, PortBase)
			}
			if other, ok := seen[p]; ok {
				t.Fatalf("job %d slot %d and %s share port %d", job, slot, other, p)
			}
			seen[p] = "another"
		}
	}
	if stepSlot(0) == nodesSlot || stepSlot(6) == nodesSlot || stepSlot(7) != stepSlot(0) {
		t.Errorf("step slots: %d %d %d", stepSlot(0), stepSlot(6), stepSlot(7))
	}
}
