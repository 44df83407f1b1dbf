package launch

import (
	"fmt"
	"strconv"
)

// slurm reads a SLURM step's variables: srun sets them for every task.
// Outside a step (a batch script, an salloc shell) a job of several
// nodes or tasks is a mistake to tell at once, since the process would
// run alone where SLURM expects several; a job of one is no launch.
func slurm(env lookup, r Request) (*Launch, error) {
	jobText, _ := env.first("SLURM_JOB_ID", "SLURM_JOBID")
	job, err := strconv.ParseUint(jobText, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("SLURM_JOB_ID=%q: want the job's number, as SLURM sets it; unset SLURM's variables to run outside SLURM", jobText)
	}
	stepText, _ := env.first("SLURM_STEP_ID", "SLURM_STEPID")
	if stepText == "" {
		nodes, _ := strconv.Atoi(first(env, "SLURM_JOB_NUM_NODES", "SLURM_NNODES"))
		tasks, _ := strconv.Atoi(first(env, "SLURM_NTASKS", "SLURM_NPROCS"))
		if nodes > 1 || tasks > 1 {
			use := "add --join slurm to use the nodes that srun " + r.Program + " node started"
			if r.Nodes {
				use = "run jobs on them with " + r.Program + " run PROGRAM --join slurm"
			}
			return nil, fmt.Errorf("SLURM job %d has %d nodes and %d tasks, and this process runs outside srun, alone: start one process a task with srun (srun %s), or %s, or add --launcher none to run here alone",
				job, max(nodes, 1), max(tasks, 1), r.Command, use)
		}
		return nil, nil
	}
	step, err := strconv.ParseUint(stepText, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("SLURM_STEP_ID=%q: want the step's number, as srun sets it", stepText)
	}
	rank, size, err := env.rankSize("SLURM_PROCID", firstName(env, "SLURM_STEP_NUM_TASKS", "SLURM_NTASKS"), "srun sets it for each task; start the program with srun")
	if err != nil {
		return nil, err
	}
	list, listName := env.first("SLURM_STEP_NODELIST", "SLURM_NODELIST", "SLURM_JOB_NODELIST")
	if list == "" {
		return nil, fmt.Errorf("SLURM_STEP_NODELIST is not set: srun sets it for each task; start the program with srun")
	}
	hosts, err := ExpandHosts(list)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: not a host list as srun sets it (n[01-04,07]); start the program with srun, or add --launcher none to run outside SLURM", listName, err)
	}
	host, ok := env.get("SLURMD_NODENAME")
	if !ok {
		return nil, fmt.Errorf("SLURMD_NODENAME is not set: slurmd sets it for each task; start the program with srun")
	}
	l := &Launch{Launcher: "SLURM", Rank: rank, Size: size, Host: host, OneHost: distinct(hosts) == 1}
	if !l.OneHost {
		l.RootHost = hosts[0]
	}
	if rank == 0 && host != hosts[0] && r.Root == "" {
		return nil, fmt.Errorf("rank 0 runs on %s, not on the step's first node %s, where the other ranks look for it: start the step with srun's default (block) or cyclic distribution, or name rank 0's host with --launch-root", host, hosts[0])
	}
	if r.Nodes {
		l.Job, l.RootPort = fmt.Sprintf("slurm job %d nodes", job), Port(job, nodesSlot)
	} else {
		l.Job, l.RootPort = fmt.Sprintf("slurm job %d step %d", job, step), Port(job, stepSlot(step))
	}
	l.Workers, err = slurmCPUs(env)
	return l, err
}

// slurmCPUs is how many CPUs SLURM gave this task: --cpus-per-task, else
// its share of those the job has on its node; 0 when SLURM does not say.
func slurmCPUs(env lookup) (int, error) {
	if env.has("SLURM_CPUS_PER_TASK") {
		return env.count("SLURM_CPUS_PER_TASK", 1, "srun --cpus-per-task sets it")
	}
	onNode, ok := env.get("SLURM_CPUS_ON_NODE")
	perNode, okPer := env.get("SLURM_STEP_TASKS_PER_NODE")
	node, okNode := env.get("SLURM_NODEID")
	if !ok || !okPer || !okNode {
		return 0, nil
	}
	cpus, err1 := strconv.Atoi(onNode)
	tasks, err2 := ExpandCounts(perNode)
	id, err3 := strconv.Atoi(node)
	if err1 != nil || err2 != nil || err3 != nil || id < 0 || id >= len(tasks) || tasks[id] < 1 || cpus < 1 {
		return 0, fmt.Errorf("SLURM_CPUS_ON_NODE=%q, SLURM_STEP_TASKS_PER_NODE=%q, SLURM_NODEID=%q: not what srun sets; give --workers", onNode, perNode, node)
	}
	return max(1, cpus/tasks[id]), nil
}

// JoinSlurm is how `run --join slurm` finds the long-lived nodes that
// `srun tsys node` started in this SLURM job: they listen on the job's
// nodes port, their seed on the first node of the job's allocation; the
// job's name gives the key. It works anywhere in the job: its batch
// script, an salloc shell, a step of its own. The Launch it returns is a
// Client's, of rank 1 so that it joins.
func JoinSlurm(getenv func(string) (string, bool)) (*Launch, error) {
	env := lookup(getenv)
	jobText, _ := env.first("SLURM_JOB_ID", "SLURM_JOBID")
	if jobText == "" {
		return nil, fmt.Errorf("--join slurm: SLURM_JOB_ID is not set: run it inside the SLURM job whose nodes it joins (its batch script, or srun --jobid JOB)")
	}
	id, err := strconv.ParseUint(jobText, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("--join slurm: SLURM_JOB_ID=%q: want the job's number", jobText)
	}
	list, listName := env.first("SLURM_JOB_NODELIST", "SLURM_NODELIST")
	if list == "" {
		return nil, fmt.Errorf("--join slurm: SLURM_JOB_NODELIST is not set: run it inside the SLURM job whose nodes it joins (its batch script, or srun --jobid JOB)")
	}
	hosts, err := ExpandHosts(list)
	if err != nil {
		return nil, fmt.Errorf("--join slurm: %s: %w: not a host list as SLURM sets it (n[01-04,07]); run it inside the SLURM job whose nodes it joins, as SLURM started it", listName, err)
	}
	host, _ := env.get("SLURMD_NODENAME")
	l := &Launch{Launcher: "SLURM", Rank: 1, Size: 2, Host: host, Client: true, OneHost: distinct(hosts) == 1,
		RootPort: Port(id, nodesSlot), Job: fmt.Sprintf("slurm job %d nodes", id)}
	if !l.OneHost {
		l.RootHost = hosts[0]
	}
	return l, nil
}

func first(env lookup, names ...string) string { v, _ := env.first(names...); return v }

// firstName is the first of names that is set, else the first name
// (which the error then names).
func firstName(env lookup, names ...string) string {
	if _, n := env.first(names...); n != "" {
		return n
	}
	return names[0]
}

// distinct counts the different hosts.
func distinct(hosts []string) int {
	seen := map[string]bool{}
	for _, h := range hosts {
		seen[h] = true
	}
	return len(seen)
}
